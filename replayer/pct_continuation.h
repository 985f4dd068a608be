// PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010) as a continuation: every thread
// gets a random distinct priority when first seen, d-1 priority change points are drawn over the
// run's estimated length k, and at every event the highest-priority ready thread runs; at the
// i-th change point the running thread drops to priority d-i, below every initial one. For a bug
// of depth d in a run of k steps with n threads, one run finds it with probability at least
// 1/(n k^(d-1)).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "replayer/continuation.h"

namespace pecan::replay {

class PctContinuation final : public Continuation {
 public:
  PctContinuation(SyncModel& model, uint64_t seed, uint32_t depth, uint64_t steps);

  SchedulePolicy::Check CheckEvent(LogicalThread thread, const EventView& event,
                                   const WaitingThreads& waiting) override;
  void Execute(LogicalThread thread, const EventView& event) override;
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override;

 private:
  uint64_t PriorityOf(LogicalThread thread);
  // The ready waiting thread of highest priority (`self` counts as ready when given).
  LogicalThread Highest(LogicalThread self, LogicalThread exclude, const WaitingThreads& waiting);

  // A thread that keeps the turn this many steps in a row while another is ready is taken to
  // spin on something a lower-priority thread must do: it drops below every thread (not a
  // change point). Without this, PCT would hang a correct program that spins on a flag.
  static constexpr uint64_t kSpinSteps = 10000;

  SyncModel& model_;
  SeededDraws draws_;
  uint32_t depth_;
  LogicalThread last_ = kNoThread;
  uint64_t run_length_ = 0;              // steps `last_` took in a row
  std::vector<uint64_t> change_points_;  // step numbers, increasing
  size_t next_change_ = 0;
  uint64_t steps_ = 0;
  std::unordered_map<LogicalThread, uint64_t> priority_;
};

}  // namespace pecan::replay
