// The column encoding of one chunk of events (EventChunk in proto/trace.proto): thread runs,
// kinds, per-thread zig-zag deltas of addresses and sites, sizes and flags — and its checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/trace.pb.h"
#include "trace_format/trace_reader.h"

namespace pecan {

// Per-thread "previous value" state that starts from zero in every chunk, so each chunk
// decodes on its own. A generation stamp avoids clearing the arrays for every chunk.
class PerThreadDeltaState {
 public:
  void StartChunk() { ++generation_; }
  // The previous address and site of `thread` in this chunk (zero on its first event).
  void Touch(ThreadId thread);
  uint64_t& addr(ThreadId thread) { return addr_[thread]; }
  uint32_t& site(ThreadId thread) { return site_[thread]; }

 private:
  std::vector<uint64_t> addr_;
  std::vector<uint32_t> site_;
  std::vector<uint32_t> stamp_;
  uint32_t generation_ = 0;
};

class ChunkEncoder {
 public:
  // Fills `chunk`'s event columns from `events` (table entries are the caller's business).
  void Encode(const EventBatch& events, proto::EventChunk& chunk);

 private:
  PerThreadDeltaState state_;
};

class ChunkDecoder {
 public:
  // Decodes `chunk` into `batch`, checking that every column has one entry per event, that the
  // thread runs cover the chunk, and that threads and sites are inside the tables. Throws
  // PecanError prefixed with `where` on any inconsistency.
  void Decode(const proto::EventChunk& chunk, size_t thread_count, size_t site_count,
              EventBatch& batch, const std::string& where);
  // True once a chunk held event kinds this pecan does not know (from a newer minor version).
  bool saw_unknown_kinds() const { return saw_unknown_kinds_; }

 private:
  PerThreadDeltaState state_;
  bool saw_unknown_kinds_ = false;
};

}  // namespace pecan
