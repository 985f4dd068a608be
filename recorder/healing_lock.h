// The lock `pecan heal` puts around a racy variable's accesses (heal_sections.h): a fair ticket
// lock (a thread that releases and re-takes it in a loop cannot starve another) whose waiters
// spin, then yield, then sleep on a futex, and may give up after a bound and go on without it.
#pragma once

#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "recorder/futex.h"

namespace pecan::rt {

class HealingLock {
 public:
  // Takes the lock; false when it waited `give_up_ns` and went on without it (the holder may be
  // blocked in code pecan does not see). While a holder keeps a waiter out that long, later
  // callers give up at once until that holder releases.
  bool Acquire(int64_t give_up_ns) {
    const uint32_t stalled = stalled_at_.load(std::memory_order_acquire);
    if (stalled != 0 && stalled - 1 == serving_.load(std::memory_order_acquire)) return false;
    const uint32_t ticket = next_.fetch_add(1, std::memory_order_relaxed);
    for (int spin = 0; spin < kSpins; ++spin) {
      if (serving_.load(std::memory_order_acquire) == ticket) return true;
      __builtin_ia32_pause();
    }
    const int64_t start = NowNs();
    for (int round = 0;; ++round) {
      const uint32_t serving = serving_.load(std::memory_order_acquire);
      if (serving == ticket) return true;
      if (round < kYields) {
        sched_yield();
      } else {
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        if (serving_.load(std::memory_order_seq_cst) == serving)
          FutexWait(&serving_, serving, kSleepNs);
        sleepers_.fetch_sub(1, std::memory_order_relaxed);
      }
      if (NowNs() - start < give_up_ns) continue;
      switch (Abandon(ticket)) {
        case Abandoned::kOwner:
          return true;
        case Abandoned::kGone:
          stalled_at_.store(serving + 1, std::memory_order_release);
          return false;
        case Abandoned::kNoRoom:
          break;  // wait on; retried after the next round
      }
    }
  }

  void Release() {
    if (stalled_at_.load(std::memory_order_relaxed) != 0)
      stalled_at_.store(0, std::memory_order_relaxed);
    uint32_t serving = serving_.load(std::memory_order_relaxed) + 1;
    // Tickets whose waiters went on without the lock are passed over.
    for (;;) {
      serving_.store(serving, std::memory_order_seq_cst);
      if (!ClaimAbandoned(serving)) break;
      ++serving;
    }
    if (sleepers_.load(std::memory_order_seq_cst) > 0) FutexWakeAll(&serving_);
  }

 private:
  static constexpr int kSpins = 2000;
  static constexpr int kYields = 64;
  static constexpr long kSleepNs = 2'000'000;
  // Waiters that may have given up on one lock at once; a further one waits on until a cell is
  // free.
  static constexpr int kAbandonCells = 8;

  enum class Abandoned { kOwner, kGone, kNoRoom };

  static int64_t NowNs() {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  }

  // Marks `ticket` as abandoned. A releaser that reaches it passes it over; if the ticket's turn
  // came meanwhile, whichever of the two takes the mark back decides who owns the lock.
  Abandoned Abandon(uint32_t ticket) {
    const uint64_t mark = uint64_t{ticket} + 1;
    for (std::atomic<uint64_t>& cell : abandoned_) {
      uint64_t empty = 0;
      if (!cell.compare_exchange_strong(empty, mark, std::memory_order_seq_cst)) continue;
      if (serving_.load(std::memory_order_seq_cst) != ticket) return Abandoned::kGone;
      uint64_t expected = mark;
      return cell.compare_exchange_strong(expected, 0, std::memory_order_seq_cst)
                 ? Abandoned::kOwner
                 : Abandoned::kGone;
    }
    return Abandoned::kNoRoom;
  }

  bool ClaimAbandoned(uint32_t ticket) {
    const uint64_t mark = uint64_t{ticket} + 1;
    for (std::atomic<uint64_t>& cell : abandoned_) {
      uint64_t expected = mark;
      if (cell.load(std::memory_order_seq_cst) == mark &&
          cell.compare_exchange_strong(expected, 0, std::memory_order_seq_cst))
        return true;
    }
    return false;
  }

  alignas(64) std::atomic<uint32_t> next_{0};
  std::atomic<uint32_t> serving_{0};
  std::atomic<uint32_t> sleepers_{0};
  std::atomic<uint32_t> stalled_at_{0};  // 1 + the serving ticket a waiter gave up on; 0: none
  std::atomic<uint64_t> abandoned_[kAbandonCells] = {};
};

}  // namespace pecan::rt
