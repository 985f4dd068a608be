// Checked decoding of an EventChunk's packed columns into events, a part at a time.
#include "trace_format/chunk_codec.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "trace_format/error.h"
#include "trace_format/record_framing.h"

namespace pecan {

void ChunkDecoder::Fail(const std::string& what) const {
  throw PecanError(where_ + ": " + what);
}

void ChunkDecoder::FailLongVarint(const char* column) const {
  Fail(std::string("chunk does not parse: its ") + column +
       " column holds a varint longer than 10 bytes");
}

uint64_t ChunkDecoder::CountColumn(const Column& column) const {
  if (column.next != column.end && column.end[-1] >= 0x80)
    Fail(std::string("chunk does not parse: its ") + column.name + " column ends inside a varint");
  return wire::CountVarints(column.next, column.end);
}

void ChunkDecoder::Decode(const ChunkView& chunk, size_t thread_count, size_t site_count,
                          EventBatch& batch, const std::string& where, uint32_t format_major) {
  Start(chunk, thread_count, site_count, where, format_major);
  if (!DecodeNext(batch, n_)) batch.Clear(chunk.first_event);  // an empty chunk
}

void ChunkDecoder::Start(const ChunkView& chunk, size_t thread_count, size_t site_count,
                         const std::string& where, uint32_t format_major) {
  chunk_ = &chunk;
  where_ = where;
  thread_count_ = thread_count;
  site_count_ = site_count;
  per_site_ = format_major >= 2;
  n_ = chunk.count;
  pos_ = 0;
  run_ = 0;
  run_done_ = 0;
  run_threads_ =
      Column{chunk.thread_run_thread.data, chunk.thread_run_thread.end(), "thread_run_thread"};
  run_lengths_ =
      Column{chunk.thread_run_length.data, chunk.thread_run_length.end(), "thread_run_length"};
  addr_deltas_ = Column{chunk.addr_delta.data, chunk.addr_delta.end(), "addr_delta"};
  site_deltas_ = Column{chunk.site_delta.data, chunk.site_delta.end(), "site_delta"};
  sizes_ = Column{chunk.size.data, chunk.size.end(), "size"};
  repeats_ = Column{chunk.repeats_before.data, chunk.repeats_before.end(), "repeats_before"};
  // Protobuf refused a column that ends inside a varint before any other check.
  const uint64_t run_threads = CountColumn(run_threads_);
  const uint64_t run_lengths = CountColumn(run_lengths_);
  const uint64_t addr_deltas = CountColumn(addr_deltas_);
  const uint64_t sizes = CountColumn(sizes_);
  const uint64_t site_deltas = CountColumn(site_deltas_);
  const uint64_t repeats = CountColumn(repeats_);
  const uint64_t n = n_;
  if (n > framing::kMaxChunkEvents) Fail("chunk claims " + std::to_string(n) + " events");
  if (chunk.kind.size != n || chunk.flags.size != n || addr_deltas != n || sizes != n ||
      site_deltas != n)
    Fail("chunk columns disagree with its event count " + std::to_string(n));
  if (run_threads != run_lengths) Fail("chunk thread-run columns disagree");
  runs_ = run_threads;
  if (repeats != 0 && repeats != n)
    Fail("chunk repeat counts disagree with its event count " + std::to_string(n));
  Column repeat_counts = repeats_;
  for (uint64_t i = 0; i < repeats; ++i) {
    const auto count = static_cast<uint32_t>(Take(repeat_counts));  // a uint32: the low 32 bits
    // The recorder never leaves out more than 65535 in a row (recorder/repeat_filter.h).
    if (count > UINT16_MAX)
      Fail("event " + std::to_string(chunk.first_event + i) + " claims " + std::to_string(count) +
           " repeats before it");
  }
  state_.StartChunk();
  if (per_site_) {
    site_addrs_.StartChunk();
    site_addrs_.Reserve(site_count);
  }
}

void ChunkDecoder::StartRun() {
  if (run_ >= runs_) Fail("chunk thread runs do not cover its events");
  run_thread_ = static_cast<ThreadId>(Take(run_threads_));  // uint32 columns: the low 32 bits
  run_length_ = static_cast<uint32_t>(Take(run_lengths_));
  if (run_thread_ >= thread_count_)
    Fail("event " + std::to_string(chunk_->first_event + pos_) + " names thread " +
         std::to_string(run_thread_) + ", not in the thread table");
  if (run_length_ == 0 || run_length_ > n_ - pos_)
    Fail("chunk thread runs do not cover its events");
  state_.Touch(run_thread_);
}

bool ChunkDecoder::DecodeNext(EventBatch& batch, uint64_t max) {
  const ChunkView& chunk = *chunk_;
  if (pos_ >= n_) return false;
  const uint64_t first = pos_;
  const uint64_t count = std::min<uint64_t>(max, n_ - pos_);
  batch.first_event = chunk.first_event + first;
  batch.thread.resize(count);
  batch.kind.resize(count);
  batch.flags.resize(count);
  batch.size.resize(count);
  batch.addr.resize(count);
  batch.site.resize(count);
  batch.repeats_before.clear();
  if (chunk.repeats_before.size != 0) {
    batch.repeats_before.resize(count);
    TakeInto(repeats_, batch.repeats_before.data(), count);  // Start checked that each fits
  }
  std::memcpy(batch.kind.data(), chunk.kind.data + first, count);
  std::memcpy(batch.flags.data(), chunk.flags.data + first, count);
  TakeInto(sizes_, batch.size.data(), count);
  if (wire::MaxByte(chunk.kind.data + first, count) >= kEventKindCount) saw_unknown_kinds_ = true;

  // The loop below keeps these in registers, not reloaded from the decoder or the batch.
  PerSiteAddressState::Entry* const site_addrs = site_addrs_.entries();
  const uint32_t generation = site_addrs_.generation();
  const uint8_t* addr_delta_at = addr_deltas_.next;
  const uint8_t* const addr_delta_end = addr_deltas_.end;
  const uint8_t* site_delta_at = site_deltas_.next;
  const uint8_t* const site_delta_end = site_deltas_.end;
  const uint64_t site_count = site_count_;
  const bool per_site = per_site_;
  ThreadId* const threads = batch.thread.data();
  uint64_t* const addrs = batch.addr.data();
  SiteId* const sites = batch.site.data();
  const uint64_t end = first + count;
  while (pos_ < end) {
    if (run_done_ == 0) StartRun();
    const ThreadId t = run_thread_;
    uint64_t addr = state_.addr(t);
    int64_t site = state_.site(t);
    const uint64_t stop = std::min(end, pos_ + (run_length_ - run_done_));
    for (uint64_t i = pos_ - first; i < stop - first; ++i) {
      // Unsigned arithmetic wraps where a signed overflow would be undefined.
      const uint64_t site_delta = Take(site_delta_at, site_delta_end, "site_delta");
      site = static_cast<int64_t>(static_cast<uint64_t>(site) +
                                  static_cast<uint64_t>(wire::UnZigZag(site_delta)));
      if (static_cast<uint64_t>(site) >= site_count)  // a negative site too
        Fail("event " + std::to_string(batch.first_event + i) + " names site " +
             std::to_string(site) + ", not in the site table");
      const uint64_t addr_delta = Take(addr_delta_at, addr_delta_end, "addr_delta");
      if (per_site) {
        PerSiteAddressState::Entry& entry = site_addrs[site];
        addr = (entry.generation == generation ? entry.addr : 0) +
               static_cast<uint64_t>(wire::UnZigZag(addr_delta));
        entry = {addr, generation};
      } else {
        addr += static_cast<uint64_t>(wire::UnZigZag(addr_delta));
      }
      threads[i] = t;
      addrs[i] = addr;
      sites[i] = static_cast<SiteId>(site);
    }
    state_.addr(t) = addr;
    state_.site(t) = static_cast<uint32_t>(site);
    run_done_ += stop - pos_;
    pos_ = stop;
    if (run_done_ == run_length_) {
      ++run_;
      run_done_ = 0;
    }
  }
  addr_deltas_.next = addr_delta_at;
  site_deltas_.next = site_delta_at;
  if (pos_ == n_ && run_ != runs_) {  // runs past the chunk's events
    const auto t = static_cast<ThreadId>(Take(run_threads_));
    if (t >= thread_count_)
      Fail("event " + std::to_string(chunk.first_event + pos_) + " names thread " +
           std::to_string(t) + ", not in the thread table");
    Fail("chunk thread runs do not cover its events");
  }
  return true;
}

}  // namespace pecan
