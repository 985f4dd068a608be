// What a recorded thread is blocked in and which locks it holds, published for the writer's
// deadlock watch (deadlock_watch.h). One per thread, inside its ring; written only by its thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

namespace pecan::rt {

// Locks a thread can be listed as holding at once. Beyond that the innermost ones are not
// listed: a deadlock report may then miss a holder, never name a wrong one.
inline constexpr uint32_t kMaxHeldLocks = 16;

// HeldLock::pc_and_shared: the lock is held in shared (read) mode. Above the 48 bits of a pc.
inline constexpr uint64_t kHeldSharedBit = uint64_t{1} << 63;

struct HeldLock {
  std::atomic<uint64_t> lock{0};
  std::atomic<uint64_t> pc_and_shared{0};  // where it was taken, | kHeldSharedBit
};

// Read by the writer as a seqlock on `word`: what it reads of the rest is consistent when `word`
// is odd and the same before and after. The thread changes `held` only while `word` is even.
struct BlockingState {
  // (n << 1) | 1 while the thread is inside its n-th untimed blocking call, (n << 1) once it
  // returned. Each value is new, so an unchanged odd word means the same call never returned.
  std::atomic<uint64_t> word{0};
  std::atomic<uint64_t> object{0};  // the lock, condition, barrier, semaphore, guard or thread
  std::atomic<uint64_t> pc{0};      // the blocking call's site
  std::atomic<uint8_t> on{0};       // pecan::BlockedOn
  std::atomic<uint32_t> held_count{0};
  HeldLock held[kMaxHeldLocks];
  pid_t tid = 0;  // set before the ring is published
};

}  // namespace pecan::rt
