// Chunk starts and growth of the per-site address table.
#include "trace_format/per_site_address.h"

#include <algorithm>

namespace pecan {

void PerSiteAddressState::StartChunk() {
  if (++generation_ == 0) {
    // Once in 2^32 chunks: no entry may keep a stamp that could come round again.
    std::fill(entries_.begin(), entries_.end(), Entry{});
    generation_ = 1;
  }
}

void PerSiteAddressState::Reserve(size_t count) {
  if (count > entries_.size()) entries_.resize(std::max(count, 2 * entries_.size()));
}

}  // namespace pecan
