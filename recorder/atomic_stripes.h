// Striped spin locks keyed by address, held around an atomic operation and its stamp so that
// the trace order of atomics on one location is their modification order.
#pragma once

#include <cstdint>

#include "recorder/spin_lock.h"

namespace pecan::rt {

// 1024 stripes, one cache line each (64 KiB). Addresses are keyed by their 16-byte block, so a
// 16-byte atomic and the 8-byte halves inside it share a stripe. Unrelated atomics that
// collide only wait for each other; they never deadlock (one stripe is held at a time).
inline constexpr uint32_t kAtomicStripes = 1024;

struct alignas(64) AtomicStripe {
  SpinLock lock;
};

extern AtomicStripe atomic_stripes[kAtomicStripes];

inline SpinLock& StripeFor(const volatile void* addr) {
  uint64_t block = reinterpret_cast<uintptr_t>(addr) >> 4;
  block ^= block >> 10;
  return atomic_stripes[block % kAtomicStripes].lock;
}

// Fork: the forking thread takes every stripe so no child inherits one mid-operation.
void LockAllStripesForFork();
void UnlockAllStripesAfterFork(bool in_child);

}  // namespace pecan::rt
