// Checked decoding of one chunk of events (EventChunk in proto/trace.proto): thread runs, kinds,
// per-thread zig-zag deltas of addresses and sites, sizes and flags, read straight from the
// chunk's packed columns (chunk_view.h). chunk_builder.h encodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace_format/chunk_view.h"
#include "trace_format/per_site_address.h"
#include "trace_format/per_thread_delta.h"
#include "trace_format/trace_reader.h"
#include "trace_format/wire.h"

namespace pecan {

class ChunkDecoder {
 public:
  // Decodes `chunk` into `batch`, checking that every column has one entry per event, that the
  // thread runs cover the chunk, and that threads and sites are inside the tables. Throws
  // PecanError prefixed with `where` on any inconsistency.
  // `format_major` says what addr_delta is relative to: the previous address of the same thread
  // (format 1) or of the same site (format 2) in the chunk.
  void Decode(const ChunkView& chunk, size_t thread_count, size_t site_count, EventBatch& batch,
              const std::string& where, uint32_t format_major);
  // The same in parts, for a reader that takes a chunk's events a few thousand at a time (so the
  // decoded events stay in the cache until used): Start checks the columns, then each DecodeNext
  // decodes the next at most `max` events into `batch`, false once none is left. `chunk` must
  // outlive the decoding, and so must the bytes it views. Per-event checks (and a varint longer
  // than 10 bytes) throw when their event is reached.
  void Start(const ChunkView& chunk, size_t thread_count, size_t site_count,
             const std::string& where, uint32_t format_major);
  bool DecodeNext(EventBatch& batch, uint64_t max);
  // True once a chunk held event kinds this pecan does not know (from a newer minor version).
  bool saw_unknown_kinds() const { return saw_unknown_kinds_; }

 private:
  // The varints of a packed column not decoded yet.
  struct Column {
    const uint8_t* next = nullptr;
    const uint8_t* end = nullptr;
    const char* name = "";  // the field's, for messages
  };

  [[noreturn]] void Fail(const std::string& what) const;
  [[noreturn]] __attribute__((cold, noinline)) void FailLongVarint(const char* column) const;
  // The next varint of column `name`, from `next` (moved past it) to `end`. Start saw that the
  // column ends with a complete varint, so only one longer than 10 bytes fails. Scalars, not a
  // Column, so that a loop keeps them in registers.
  __attribute__((always_inline)) uint64_t Take(const uint8_t*& next, const uint8_t* end,
                                               const char* name) const {
    uint64_t v;
    if (!wire::GetVarint(next, end, v)) [[unlikely]]
      FailLongVarint(name);
    return v;
  }
  uint64_t Take(Column& column) const { return Take(column.next, column.end, column.name); }
  // Takes the next `count` varints of `column` into `out`, each cut to T (a uint32 field keeps
  // the low 32 bits, as in protobuf).
  template <typename T>
  void TakeInto(Column& column, T* out, uint64_t count) const {
    const uint8_t* next = column.next;  // in a register, not stored back each time
    const uint8_t* const end = column.end;
    for (uint64_t i = 0; i < count; ++i) out[i] = static_cast<T>(Take(next, end, column.name));
    column.next = next;
  }
  // The number of varints in `column`, which must end with a complete one.
  uint64_t CountColumn(const Column& column) const;
  // Takes the thread and length of the next run, checking them, as the run's first event is
  // reached.
  void StartRun();

  PerThreadDeltaState state_;
  PerSiteAddressState site_addrs_;
  bool saw_unknown_kinds_ = false;
  // The chunk being decoded: its events before `pos_` are done; `pos_` is `run_done_` events into
  // thread run `run_` of `runs_`, of thread `run_thread_` and `run_length_` events. The columns'
  // varints before `pos_` are taken, and the run columns' through the run started last.
  const ChunkView* chunk_ = nullptr;
  std::string where_;
  size_t thread_count_ = 0;
  size_t site_count_ = 0;
  bool per_site_ = false;
  uint64_t n_ = 0;
  uint64_t pos_ = 0;
  uint64_t runs_ = 0;
  uint64_t run_ = 0;
  uint64_t run_done_ = 0;
  ThreadId run_thread_ = 0;
  uint64_t run_length_ = 0;
  Column run_threads_, run_lengths_, addr_deltas_, site_deltas_, sizes_, repeats_;
};

}  // namespace pecan
