// HeapBlocks: the blocks a trace allocates (its ALLOC events), found by address and moment, so a
// report can name heap memory by where it was allocated.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

struct HeapBlock {
  EventIndex alloc = 0;  // the ALLOC event: its thread and site say who allocated it where
  uint64_t begin = 0;
  uint64_t size = 0;  // as requested (a FREE carries the usable size, which may be larger)
};

class HeapBlocks {
 public:
  explicit HeapBlocks(const Trace& trace);

  // The block that held `address` at event `at`: the latest ALLOC before `at` covering it. A
  // block freed before `at` still counts, so a use after free names the block it used.
  std::optional<HeapBlock> At(uint64_t address, EventIndex at) const;

 private:
  std::vector<HeapBlock> blocks_;  // sorted by begin
  std::vector<uint64_t> max_end_;  // per i: the largest end of blocks_[0..i]
};

}  // namespace pecan
