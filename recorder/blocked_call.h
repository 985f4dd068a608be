// The interposers' side of the deadlock watch: BlockedInCall marks the thread blocked around an
// untimed blocking call, NoteLockEvent keeps its list of held locks. A few plain stores each.
#pragma once

#include <atomic>
#include <cstdint>

#include "recorder/thread_state.h"
#include "trace_format/trace.h"

namespace pecan::rt {

// Around the real call of an untimed wait (lock, condition wait, join, barrier, semaphore,
// static guard). Timed waits and trylocks are never blocked for good, so they are not marked;
// neither are objects shared with other processes (`process_private` false), which another
// process may release.
class BlockedInCall {
 public:
  BlockedInCall(BlockedOn on, uint64_t object, uint64_t pc, bool process_private = true) {
    ThreadState& t = tls_thread;
    if (!t.watch_blocking || t.ring == nullptr || !process_private) return;
    state_ = &t.ring->blocking;
    number_ = ++t.blocking_calls;
    state_->object.store(object, std::memory_order_relaxed);
    state_->pc.store(pc, std::memory_order_relaxed);
    state_->on.store(static_cast<uint8_t>(on), std::memory_order_relaxed);
    state_->word.store((number_ << 1) | 1, std::memory_order_release);
  }
  ~BlockedInCall() {
    if (state_ == nullptr) return;
    state_->word.store(number_ << 1, std::memory_order_relaxed);
    // The held-lock changes that follow must not be seen before the word says "returned".
    std::atomic_thread_fence(std::memory_order_release);
  }
  BlockedInCall(const BlockedInCall&) = delete;
  BlockedInCall& operator=(const BlockedInCall&) = delete;

 private:
  BlockingState* state_ = nullptr;
  uint64_t number_ = 0;
};

// Called for every stamped event: LOCK/READ_LOCK add to the thread's held locks, UNLOCK/
// READ_UNLOCK remove one entry of the lock (the events are recorded once per outermost acquire/
// release). Inline: it runs inside the program's critical sections. Only this thread writes the
// list, and only while its word is even (outside blocking calls), so relaxed stores suffice; the
// writer trusts what it reads only when the word stayed odd.
inline void NoteLockEvent(const ThreadState& t, EventKind kind, uint64_t lock, uint64_t pc) {
  static_assert(uint8_t(EventKind::kUnlock) == uint8_t(EventKind::kLock) + 1 &&
                uint8_t(EventKind::kReadUnlock) == uint8_t(EventKind::kLock) + 3);
  if (uint8_t(uint8_t(kind) - uint8_t(EventKind::kLock)) > 3 || !t.watch_blocking ||
      t.ring == nullptr)
    return;
  BlockingState& state = t.ring->blocking;
  const uint32_t count = state.held_count.load(std::memory_order_relaxed);
  if (IsAcquire(kind)) {
    if (count == kMaxHeldLocks) return;
    const uint64_t shared = kind == EventKind::kReadLock ? kHeldSharedBit : 0;
    state.held[count].lock.store(lock, std::memory_order_relaxed);
    state.held[count].pc_and_shared.store((pc & kLow48) | shared, std::memory_order_relaxed);
    state.held_count.store(count + 1, std::memory_order_relaxed);
    return;
  }
  // The last entry takes the released one's place. Not found: it was beyond kMaxHeldLocks, or
  // taken before the thread was recorded.
  for (uint32_t i = count; i-- > 0;) {
    if (state.held[i].lock.load(std::memory_order_relaxed) != lock) continue;
    if (i != count - 1) {
      state.held[i].lock.store(state.held[count - 1].lock.load(std::memory_order_relaxed),
                               std::memory_order_relaxed);
      state.held[i].pc_and_shared.store(
          state.held[count - 1].pc_and_shared.load(std::memory_order_relaxed),
          std::memory_order_relaxed);
    }
    state.held_count.store(count - 1, std::memory_order_relaxed);
    return;
  }
}

}  // namespace pecan::rt
