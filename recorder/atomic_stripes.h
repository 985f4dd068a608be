// Striped spin locks keyed by address, held around an atomic operation and the number it takes
// in its stripe's sequence (object_sequences.h): the trace order of atomics on one location is
// their modification order, without a counter shared by every atomic of the program.
#pragma once

#include <atomic>
#include <cstdint>

#include "recorder/spin_lock.h"

namespace pecan::rt {

// 1024 stripes, one cache line each (64 KiB). Addresses are keyed by their 16-byte block, so a
// 16-byte atomic and the 8-byte halves inside it share a stripe. Unrelated atomics that
// collide only wait for each other; they never deadlock (one stripe is held at a time).
inline constexpr uint32_t kAtomicStripes = 1024;

struct alignas(64) AtomicStripe {
  SpinLock lock;
  // Both only under `lock`. `numbered` is atomic because the writer reads it (at the end of the
  // recording) without the lock; `closed` is set by the first holder that sees the recording
  // closed, so the stripe's numbered events are a prefix of its operations.
  bool closed = false;
  std::atomic<uint64_t> numbered{0};
};

extern AtomicStripe atomic_stripes[kAtomicStripes];

inline uint32_t StripeIndexFor(const volatile void* addr) {
  uint64_t block = reinterpret_cast<uintptr_t>(addr) >> 4;
  block ^= block >> 10;
  return uint32_t(block % kAtomicStripes);
}

// Fork: the forking thread takes every stripe so no child inherits one mid-operation. A child
// starts its stripes' numbering afresh (it records into its own trace, or not at all).
void LockAllStripesForFork();
void UnlockAllStripesAfterFork(bool in_child);

}  // namespace pecan::rt
