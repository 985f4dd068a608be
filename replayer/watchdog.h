// The replay watchdog: a runtime thread (never part of the schedule) that keeps every replay
// bounded. It declares deadlocks, enforces the time bound, and takes the turn away from a
// holder that sits in uninstrumented code while the schedule continues on another thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "replayer/scheduler.h"
#include "replayer/turn_semaphore.h"

namespace pecan::replay {

class Watchdog {
 public:
  struct Options {
    std::chrono::milliseconds tick{5};
    // The holder has run its last step and sleeps in a system call (I/O, sleep, an
    // uninstrumented lock): after this long without progress the next thread gets the turn.
    std::chrono::milliseconds idle_grace{20};
    // The same when the holder is computing or in disk I/O (it will most likely reach an event
    // soon), or, under a policy that chooses (a seeded one), in a timed sleep.
    std::chrono::milliseconds busy_grace{1000};
    // Every live thread waits and nothing moved for this long: deadlock.
    std::chrono::milliseconds deadlock_confirm{500};
    // Scheduling must finish within this (zero: no bound).
    std::chrono::milliseconds time_bound{std::chrono::seconds(10)};
  };

  Watchdog(Scheduler& scheduler, Options options) : scheduler_(scheduler), options_(options) {}

  // Watches until scheduling ends (or RequestExit()). Run it on a thread of its own.
  void Run();
  void RequestExit();

  uint64_t idle_handovers() const { return idle_handovers_.load(std::memory_order_relaxed); }

 private:
  Scheduler& scheduler_;
  Options options_;
  TurnSemaphore exit_signal_;
  std::atomic<bool> exit_requested_{false};
  std::atomic<uint64_t> idle_handovers_{0};
};

}  // namespace pecan::replay
