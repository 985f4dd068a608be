// A tiny test-and-test-and-set lock for the runtime's own short critical sections (tables,
// atomic stripes). It never calls into libc on the fast path and backs off to sched_yield.
#pragma once

#include <sched.h>

#include <atomic>

namespace pecan::rt {

class SpinLock {
 public:
  void lock() {
    for (int attempt = 0;; ++attempt) {
      if (!locked_.load(std::memory_order_relaxed) &&
          !locked_.exchange(true, std::memory_order_acquire)) {
        return;
      }
      if (attempt < 32) {
        __builtin_ia32_pause();
      } else {
        sched_yield();  // the holder may be descheduled (more threads than cores)
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }
  // A forked child inherits the lock word of threads that no longer exist.
  void ResetAfterFork() { locked_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> locked_{false};
};

class SpinLockGuard {
 public:
  explicit SpinLockGuard(SpinLock& lock) : lock_(lock) { lock_.lock(); }
  ~SpinLockGuard() { lock_.unlock(); }
  SpinLockGuard(const SpinLockGuard&) = delete;
  SpinLockGuard& operator=(const SpinLockGuard&) = delete;

 private:
  SpinLock& lock_;
};

}  // namespace pecan::rt
