// Checked decoding of one chunk of events (EventChunk in proto/trace.proto): thread runs, kinds,
// per-thread zig-zag deltas of addresses and sites, sizes and flags. chunk_builder.h encodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/trace.pb.h"
#include "trace_format/per_site_address.h"
#include "trace_format/per_thread_delta.h"
#include "trace_format/trace_reader.h"

namespace pecan {

class ChunkDecoder {
 public:
  // Decodes `chunk` into `batch`, checking that every column has one entry per event, that the
  // thread runs cover the chunk, and that threads and sites are inside the tables. Throws
  // PecanError prefixed with `where` on any inconsistency.
  // `format_major` says what addr_delta is relative to: the previous address of the same thread
  // (format 1) or of the same site (format 2) in the chunk.
  void Decode(const proto::EventChunk& chunk, size_t thread_count, size_t site_count,
              EventBatch& batch, const std::string& where, uint32_t format_major);
  // The same in parts, for a reader that takes a chunk's events a few thousand at a time (so the
  // decoded events stay in the cache until used): Start checks the columns, then each DecodeNext
  // decodes the next at most `max` events into `batch`, false once none is left. `chunk` must
  // outlive the decoding. Per-event checks throw when their event is reached.
  void Start(const proto::EventChunk& chunk, size_t thread_count, size_t site_count,
             const std::string& where, uint32_t format_major);
  bool DecodeNext(EventBatch& batch, uint64_t max);
  // True once a chunk held event kinds this pecan does not know (from a newer minor version).
  bool saw_unknown_kinds() const { return saw_unknown_kinds_; }

 private:
  [[noreturn]] void Fail(const std::string& what) const;

  PerThreadDeltaState state_;
  PerSiteAddressState site_addrs_;
  bool saw_unknown_kinds_ = false;
  // The chunk being decoded: its events before `pos_` are done; `pos_` is `run_done_` events into
  // thread run `run_`.
  const proto::EventChunk* chunk_ = nullptr;
  std::string where_;
  size_t thread_count_ = 0;
  size_t site_count_ = 0;
  bool per_site_ = false;
  uint64_t n_ = 0;
  uint64_t pos_ = 0;
  int run_ = 0;
  uint64_t run_done_ = 0;
};

}  // namespace pecan
