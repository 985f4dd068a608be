// The per-thread "previous address and site" that a chunk's delta columns are relative to,
// shared by the chunk writer (chunk_builder.h) and the chunk decoder (chunk_codec.h).
#pragma once

#include <cstdint>
#include <vector>

#include "trace_format/trace.h"

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

}  // namespace pecan
