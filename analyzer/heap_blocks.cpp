// HeapBlocks: the ALLOC events sorted by address; a lookup walks back from the address while a
// block could still reach it (the running maximum of the ends says when to stop).
#include "analyzer/heap_blocks.h"

#include <algorithm>

namespace pecan {

HeapBlocks::HeapBlocks(const Trace& trace) {
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    if (trace.kind[i] == EventKind::kAlloc)
      blocks_.push_back(HeapBlock{i, trace.addr[i], std::max<uint64_t>(trace.size[i], 1)});
  }
  std::stable_sort(blocks_.begin(), blocks_.end(),
                   [](const HeapBlock& a, const HeapBlock& b) { return a.begin < b.begin; });
  max_end_.reserve(blocks_.size());
  uint64_t max_end = 0;
  for (const HeapBlock& block : blocks_) {
    max_end = std::max(max_end, block.begin + block.size);
    max_end_.push_back(max_end);
  }
}

std::optional<HeapBlock> HeapBlocks::At(uint64_t address, EventIndex at) const {
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), address,
                             [](uint64_t a, const HeapBlock& block) { return a < block.begin; });
  std::optional<HeapBlock> found;
  for (size_t k = it - blocks_.begin(); k-- > 0 && max_end_[k] > address;) {
    const HeapBlock& block = blocks_[k];
    if (block.alloc < at && address < block.begin + block.size &&
        (!found || block.alloc > found->alloc))
      found = block;
  }
  return found;
}

}  // namespace pecan
