// The chunk being written: each appended event goes straight into the EventChunk columns, already
// in protobuf wire format (zig-zag deltas as varints: addresses per site, sites per thread), so
// writing the chunk is a copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "trace_format/per_site_address.h"
#include "trace_format/per_thread_delta.h"
#include "trace_format/trace.h"
#include "trace_format/wire.h"

namespace pecan {

// Bytes that grow without being zero-filled (a chunk's columns, its encoding, its zstd frame).
class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer();
  ByteBuffer(const ByteBuffer&) = delete;
  ByteBuffer& operator=(const ByteBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t capacity() const { return capacity_; }
  // Makes room for `bytes` bytes, keeping the first `keep`. Throws std::bad_alloc.
  void Reserve(size_t bytes, size_t keep);

 private:
  uint8_t* data_ = nullptr;
  size_t capacity_ = 0;
};

// One event of a run: the thread is the run's.
struct RunEvent {
  EventKind kind = EventKind::kUnspecified;
  uint8_t flags = 0;
  uint32_t size = 0;
  uint64_t addr = 0;
  SiteId site = 0;
  uint16_t repeats_before = 0;
};

class ChunkBuilder {
 public:
  static constexpr ThreadId kNoRun = UINT32_MAX;  // thread ids stay below 2^24

  // The write positions of the open run as a value, so that a loop appending many events of
  // one thread keeps them in registers: OpenCursor, Add while !full(), CloseCursor. Nothing
  // else may change the builder in between.
  class Cursor {
   public:
    bool full() const { return kind_out_ == kind_limit_; }
    size_t room() const { return kind_limit_ - kind_out_; }
    // Scalars, not a RunEvent: the byte stores below could alias a referenced event and force
    // reloads.
    // Inlined into the writer's per-event loops (the recorder's drain, Append).
    __attribute__((always_inline)) void Add(EventKind kind, uint8_t flags, uint32_t size,
                                            uint64_t addr, SiteId site,
                                            uint16_t repeats_before = 0) {
      if (repeats_before != 0) [[unlikely]]
        repeats_->emplace_back(static_cast<uint32_t>(kind_out_ - kinds_), repeats_before);
      kind_out_[0] = static_cast<uint8_t>(kind);
      kind_out_[flags_offset_] = flags;
      ++kind_out_;
      const uint64_t previous = PerSiteAddressState::Exchange(site_addrs_[site], generation_, addr);
      wire::PutVarint(addr_out_, wire::ZigZag(static_cast<int64_t>(addr - previous)));
      wire::PutVarint(site_out_, wire::ZigZag(static_cast<int64_t>(site) - site_));
      wire::PutVarint(size_out_, size);
      site_ = site;
    }

   private:
    friend class ChunkBuilder;
    uint8_t* kind_out_;
    uint8_t* kind_limit_;
    size_t flags_offset_;  // an event's flags byte lies this far after its kind byte
    uint8_t* addr_out_;
    uint8_t* site_out_;
    uint8_t* size_out_;
    int64_t site_;                            // previous site of the run's thread
    PerSiteAddressState::Entry* site_addrs_;  // previous address of each site in the chunk
    uint32_t generation_;
    const uint8_t* kinds_;  // the chunk's first kind byte: event i's is kinds_[i]
    std::vector<std::pair<uint32_t, uint16_t>>* repeats_;
  };

  ChunkBuilder();

  uint32_t count() const { return static_cast<uint32_t>(kind_out_ - kinds_and_flags_.data()); }
  // Room for this many events; Add needs !full(). Each event may take up to 31 bytes (a 10-byte
  // address delta, 5-byte site delta, size, run thread and run length, and the kind and flags
  // bytes); the buffers hold that, untouched until used.
  uint32_t capacity() const { return capacity_; }
  bool full() const { return kind_out_ == kind_limit_; }
  void Reserve(uint32_t events);

  // The thread of the open run (the thread Add appends for), kNoRun at the start of a chunk.
  ThreadId run_thread() const { return run_thread_; }
  // Closes the open run and opens one for `thread`.
  void StartRun(ThreadId thread);

  // Add may then take events of sites [0, site_count).
  Cursor OpenCursor(size_t site_count) {
    site_addrs_.Reserve(site_count);
    Cursor c;
    c.site_addrs_ = site_addrs_.entries();
    c.generation_ = site_addrs_.generation();
    c.kinds_ = kinds_and_flags_.data();
    c.repeats_ = &repeats_;
    c.kind_out_ = kind_out_;
    c.kind_limit_ = kind_limit_;
    c.flags_offset_ = capacity_;
    c.addr_out_ = addr_end_;
    c.site_out_ = site_end_;
    c.size_out_ = size_end_;
    c.site_ = run_site_;
    return c;
  }
  void CloseCursor(const Cursor& c) {
    kind_out_ = c.kind_out_;
    addr_end_ = c.addr_out_;
    site_end_ = c.site_out_;
    size_end_ = c.size_out_;
    run_site_ = static_cast<uint32_t>(c.site_);
  }

  // Appends one event of run_thread(). Needs !full().
  void Add(EventKind kind, uint8_t flags, uint32_t size, uint64_t addr, SiteId site,
           uint16_t repeats_before = 0) {
    Cursor c = OpenCursor(size_t{site} + 1);
    c.Add(kind, flags, size, addr, site, repeats_before);
    CloseCursor(c);
  }

  // Closes the open run and returns the size of the chunk's event fields (fields 1-9 of
  // EventChunk) in wire format.
  size_t Seal(uint64_t first_event);
  // Writes those fields, exactly as protobuf serializes them, and returns the end. Table
  // entries (fields 10-13) may follow: protobuf reads concatenated fields as one message.
  uint8_t* Encode(uint8_t* out) const;
  // The size, and the bytes, of field 14 (repeats_before, one entry per event), which goes
  // after the table entries; nothing when no event of the chunk follows left-out repeats.
  size_t RepeatsFieldSize() const;
  uint8_t* EncodeRepeats(uint8_t* out) const;
  // Empties the chunk; deltas start again from zero.
  void Clear();

 private:
  static size_t FieldSize(size_t length) { return 1 + wire::VarintSize(length) + length; }
  size_t RepeatsLength() const;  // bytes of field 14's payload

  // Kinds in the first `capacity_` bytes, flags in the next `capacity_`.
  ByteBuffer kinds_and_flags_;
  ByteBuffer addrs_, sites_, sizes_, run_threads_, run_lengths_;
  uint8_t* kind_out_ = nullptr;  // the next event's kind byte
  uint8_t* kind_limit_ = nullptr;
  uint8_t* addr_end_ = nullptr;
  uint8_t* site_end_ = nullptr;
  uint8_t* size_end_ = nullptr;
  uint8_t* run_threads_end_ = nullptr;
  uint8_t* run_lengths_end_ = nullptr;
  uint32_t capacity_ = 0;

  ThreadId run_thread_ = kNoRun;
  uint32_t run_start_ = 0;      // index of the open run's first event
  uint32_t run_site_ = 0;       // previous site of the open run's thread
  PerThreadDeltaState deltas_;  // the same for the other threads
  PerSiteAddressState site_addrs_;
  // Events with repeats before them, as (index in the chunk, count): few, so kept aside.
  std::vector<std::pair<uint32_t, uint16_t>> repeats_;

  uint64_t first_event_ = 0;  // set by Seal
};

}  // namespace pecan
