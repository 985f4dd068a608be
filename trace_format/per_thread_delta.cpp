// Growth and per-chunk reset of the per-thread delta state.
#include "trace_format/per_thread_delta.h"

#include <algorithm>

namespace pecan {

void PerThreadDeltaState::Touch(ThreadId thread) {
  if (thread >= stamp_.size()) {
    size_t n = std::max<size_t>(thread + 1, stamp_.size() * 2);
    addr_.resize(n);
    site_.resize(n);
    stamp_.resize(n, 0);
  }
  if (stamp_[thread] != generation_) {
    stamp_[thread] = generation_;
    addr_[thread] = 0;
    site_[thread] = 0;
  }
}

}  // namespace pecan
