// A scope that holds a spin lock (an atomic_flag): for the replayer's rarely contended tables.
// Not a pthread mutex, because those are interposed by the runtime the replayer lives in.
#pragma once

#include <sched.h>

#include <atomic>

namespace pecan::replay {

class SpinGuard {
 public:
  explicit SpinGuard(std::atomic_flag& flag) : flag_(flag) {
    while (flag_.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  ~SpinGuard() { flag_.clear(std::memory_order_release); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  std::atomic_flag& flag_;
};

}  // namespace pecan::replay
