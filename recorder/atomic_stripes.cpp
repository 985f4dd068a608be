// The stripe table for atomic operations and its fork protocol.
// Taking all 1024 stripes costs microseconds and happens only around fork().
#include "recorder/atomic_stripes.h"

namespace pecan::rt {

AtomicStripe atomic_stripes[kAtomicStripes];

void LockAllStripesForFork() {
  for (AtomicStripe& stripe : atomic_stripes) stripe.lock.lock();
}

void UnlockAllStripesAfterFork(bool in_child) {
  for (AtomicStripe& stripe : atomic_stripes) {
    if (in_child) {
      stripe.closed = false;
      stripe.numbered.store(0, std::memory_order_relaxed);
      stripe.lock.ResetAfterFork();
    } else {
      stripe.lock.unlock();
    }
  }
}

}  // namespace pecan::rt
