// DeadlockWatch: the rings' blocking words compared from look to look, then a check with the
// kernel before the run is declared deadlocked (a thread pecan does not record, or one that was
// woken but has not run yet, would make it a false alarm).
#include "recorder/deadlock_watch.h"

#include <algorithm>

#include "recorder/process_tasks.h"

namespace pecan::rt {
namespace {

// A spinlock's waiter keeps running: the kernel shows it runnable, not asleep.
bool Spins(BlockedOn on) {
  return on == BlockedOn::kSpinlock;
}

// The ring's blocking state, read as a seqlock: false when the thread moved meanwhile.
bool ReadState(const ThreadRing& ring, uint64_t word, BlockedThreadState& out) {
  const BlockingState& state = ring.blocking;
  out.serial = ring.serial;
  out.object = state.object.load(std::memory_order_relaxed);
  out.pc = state.pc.load(std::memory_order_relaxed);
  const uint8_t on = state.on.load(std::memory_order_relaxed);
  out.on = on <= uint8_t(kLastBlockedOn) ? BlockedOn(on) : BlockedOn::kUnspecified;
  const uint32_t count = std::min(state.held_count.load(std::memory_order_relaxed), kMaxHeldLocks);
  out.held.clear();
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t pc_and_shared = state.held[i].pc_and_shared.load(std::memory_order_relaxed);
    out.held.push_back(BlockedThreadState::Held{state.held[i].lock.load(std::memory_order_relaxed),
                                                pc_and_shared & ~kHeldSharedBit,
                                                (pc_and_shared & kHeldSharedBit) != 0});
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return state.word.load(std::memory_order_relaxed) == word;
}

}  // namespace

DeadlockWatch::DeadlockWatch(uint32_t wait_ms) : wait_ns_(int64_t{wait_ms} * 1'000'000) {}

std::vector<BlockedThreadState> DeadlockWatch::Look(const std::vector<const ThreadRing*>& rings,
                                                    int64_t now_ns) {
  now_.clear();
  for (const ThreadRing* ring : rings) {
    if (ring->finished.load(std::memory_order_acquire)) continue;
    const uint64_t word = ring->blocking.word.load(std::memory_order_acquire);
    if ((word & 1) == 0) {  // a thread outside a blocking call: the run can go on
      seen_.clear();
      return {};
    }
    now_.push_back(Seen{ring, word, ring->tail.load(std::memory_order_acquire)});
  }
  if (now_.empty() || now_ != seen_) {
    seen_.swap(now_);
    since_ns_ = now_ns;
    return {};
  }
  if (now_ns - since_ns_ < wait_ns_) return {};
  // Stuck as far as the rings tell. Whatever the kernel says now, the next verdict comes only
  // after another full wait.
  since_ns_ = now_ns;
  // One more thread than the rings: the writer (this one). Any other is one pecan does not
  // record (or one still ending), which may yet release the others.
  if (LiveThreadCount() != seen_.size() + 1) return {};
  std::vector<BlockedThreadState> blocked(seen_.size());
  for (size_t i = 0; i < seen_.size(); ++i) {
    if (!ReadState(*seen_[i].ring, seen_[i].word, blocked[i])) return {};
    // Woken (the lock was handed over) but not yet scheduled: runnable, not asleep.
    const char state = TaskState(seen_[i].ring->blocking.tid);
    if (!Spins(blocked[i].on) && state != 'S' && state != 'D') return {};
  }
  return blocked;
}

}  // namespace pecan::rt
