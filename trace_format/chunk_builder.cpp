// Growth, runs and the final wire encoding of the chunk being written.
#include "trace_format/chunk_builder.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace pecan {

ByteBuffer::~ByteBuffer() {
  std::free(data_);
}

void ByteBuffer::Reserve(size_t bytes, size_t keep) {
  if (bytes <= capacity_) return;
  uint8_t* grown;
  if (keep > 0) {
    grown = static_cast<uint8_t*>(std::realloc(data_, bytes));
  } else {
    // Nothing to keep: no copy.
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
    grown = static_cast<uint8_t*>(std::malloc(bytes));
  }
  if (grown == nullptr) throw std::bad_alloc();
  data_ = grown;
  capacity_ = bytes;
}

namespace {

// Widest varint per event in each column (see ChunkBuilder::capacity()).
constexpr size_t kMaxAddrBytes = 10;  // any 64-bit zig-zag delta
constexpr size_t kMaxSiteBytes = 5;   // a difference of two 32-bit ids: 33 bits zig-zagged
constexpr size_t kMaxUint32Bytes = 5;

constexpr uint8_t kFirstEventTag = (1 << 3) | wire::kVarint;  // EventChunk field numbers
constexpr uint8_t kCountTag = (2 << 3) | wire::kVarint;
constexpr uint32_t kRunThreadField = 3;
constexpr uint32_t kRunLengthField = 4;
constexpr uint32_t kKindField = 5;
constexpr uint32_t kAddrDeltaField = 6;
constexpr uint32_t kSizeField = 7;
constexpr uint32_t kFlagsField = 8;
constexpr uint32_t kSiteDeltaField = 9;
constexpr uint32_t kRepeatsBeforeField = 14;

}  // namespace

ChunkBuilder::ChunkBuilder() {
  Clear();
}

void ChunkBuilder::Reserve(uint32_t events) {
  if (events <= capacity_) return;
  const uint32_t count = this->count();
  auto grow = [events](ByteBuffer& buffer, uint8_t*& end, size_t bytes_per_event) {
    const size_t used = end - buffer.data();
    buffer.Reserve(events * bytes_per_event, used);
    end = buffer.data() + used;
  };
  // The flags move up to their new place after the kinds.
  kinds_and_flags_.Reserve(2 * size_t{events}, 2 * size_t{capacity_});
  uint8_t* kinds = kinds_and_flags_.data();
  if (count > 0) std::memmove(kinds + events, kinds + capacity_, count);
  kind_out_ = kinds + count;
  kind_limit_ = kinds + events;
  grow(addrs_, addr_end_, kMaxAddrBytes);
  grow(sites_, site_end_, kMaxSiteBytes);
  grow(sizes_, size_end_, kMaxUint32Bytes);
  grow(run_threads_, run_threads_end_, kMaxUint32Bytes);
  grow(run_lengths_, run_lengths_end_, kMaxUint32Bytes);
  capacity_ = events;
}

void ChunkBuilder::StartRun(ThreadId thread) {
  const uint32_t count = this->count();
  if (run_thread_ != kNoRun && count > run_start_) {
    wire::PutVarint(run_threads_end_, run_thread_);
    wire::PutVarint(run_lengths_end_, count - run_start_);
    deltas_.site(run_thread_) = run_site_;
  }
  run_thread_ = thread;
  run_start_ = count;
  if (thread == kNoRun) return;
  deltas_.Touch(thread);
  run_site_ = deltas_.site(thread);
}

size_t ChunkBuilder::Seal(uint64_t first_event) {
  StartRun(kNoRun);
  first_event_ = first_event;
  const uint32_t count = this->count();
  size_t size = 0;
  if (first_event_ != 0) size += 1 + wire::VarintSize(first_event_);
  if (count == 0) return size;
  size += 1 + wire::VarintSize(count);
  size += FieldSize(run_threads_end_ - run_threads_.data());
  size += FieldSize(run_lengths_end_ - run_lengths_.data());
  size += 2 * FieldSize(count);  // kinds and flags
  size += FieldSize(addr_end_ - addrs_.data());
  size += FieldSize(size_end_ - sizes_.data());
  size += FieldSize(site_end_ - sites_.data());
  return size;
}

uint8_t* ChunkBuilder::Encode(uint8_t* out) const {
  const uint32_t count = this->count();
  if (first_event_ != 0) {
    *out++ = kFirstEventTag;
    wire::PutVarint(out, first_event_);
  }
  if (count == 0) return out;
  *out++ = kCountTag;
  wire::PutVarint(out, count);
  const uint8_t* kinds = kinds_and_flags_.data();
  struct Column {
    uint32_t field;
    const uint8_t* begin;
    const uint8_t* end;
  };
  // Fields in number order, as protobuf writes them; every column is non-empty here.
  const Column columns[] = {
      {kRunThreadField, run_threads_.data(), run_threads_end_},
      {kRunLengthField, run_lengths_.data(), run_lengths_end_},
      {kKindField, kinds, kinds + count},
      {kAddrDeltaField, addrs_.data(), addr_end_},
      {kSizeField, sizes_.data(), size_end_},
      {kFlagsField, kinds + capacity_, kinds + capacity_ + count},
      {kSiteDeltaField, sites_.data(), site_end_},
  };
  for (const Column& column : columns) {
    const size_t length = column.end - column.begin;
    *out++ = static_cast<uint8_t>(column.field << 3 | wire::kLengthDelimited);
    wire::PutVarint(out, length);
    std::memcpy(out, column.begin, length);
    out += length;
  }
  return out;
}

size_t ChunkBuilder::RepeatsLength() const {
  size_t length = count();  // one byte for each zero
  for (const auto& [index, repeats] : repeats_) length += wire::VarintSize(repeats) - 1;
  return length;
}

size_t ChunkBuilder::RepeatsFieldSize() const {
  return repeats_.empty() ? 0 : FieldSize(RepeatsLength());
}

uint8_t* ChunkBuilder::EncodeRepeats(uint8_t* out) const {
  if (repeats_.empty()) return out;
  *out++ = static_cast<uint8_t>(kRepeatsBeforeField << 3 | wire::kLengthDelimited);
  wire::PutVarint(out, RepeatsLength());
  uint32_t next = 0;
  for (const auto& [index, repeats] : repeats_) {
    for (; next < index; ++next) *out++ = 0;
    wire::PutVarint(out, repeats);
    ++next;
  }
  for (const uint32_t n = count(); next < n; ++next) *out++ = 0;
  return out;
}

void ChunkBuilder::Clear() {
  kind_out_ = kinds_and_flags_.data();
  addr_end_ = addrs_.data();
  site_end_ = sites_.data();
  size_end_ = sizes_.data();
  run_threads_end_ = run_threads_.data();
  run_lengths_end_ = run_lengths_.data();
  run_thread_ = kNoRun;
  run_start_ = 0;
  repeats_.clear();
  deltas_.StartChunk();
  site_addrs_.StartChunk();
}

}  // namespace pecan
