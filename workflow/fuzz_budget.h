// When `pecan fuzz` stops starting runs: after --budget seconds, or (--until-failure) once a run
// has failed. Runs already started finish; those never started are left out of fuzz.json.
#pragma once

#include <atomic>
#include <chrono>

namespace pecan::workflow {

class FuzzBudget {
 public:
  FuzzBudget(double seconds, bool until_failure)
      : start_(std::chrono::steady_clock::now()),
        seconds_(seconds),
        until_failure_(until_failure) {}

  // True when no further run may start.
  bool Exhausted() const {
    if (until_failure_ && failed_.load(std::memory_order_relaxed)) return true;
    if (seconds_ <= 0) return false;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >=
           seconds_;
  }
  void NoteFailure() { failed_.store(true, std::memory_order_relaxed); }

 private:
  std::chrono::steady_clock::time_point start_;
  double seconds_;  // 0: no bound
  bool until_failure_;
  std::atomic<bool> failed_{false};
};

}  // namespace pecan::workflow
