// The default continuation of a replay and pecan fuzz's random strategy: the next thread is a
// seeded random choice among those ready to run, so the rest of the run is a function of the
// clip and the seed, and whatever failure follows happens again.
#pragma once

#include <cstdint>

#include "replayer/continuation.h"

namespace pecan::replay {

class SeededTail final : public Continuation {
 public:
  // With slices (a replay's continuation), the holder keeps the turn for 1..kMaxSlice events
  // (drawn from the seed) while it can run: switches stay rare (a replay runs fast on one
  // thread), and a thread spinning on a flag another must set cannot hold the turn forever.
  // Without (pecan fuzz --strategy random), every event is a uniformly random choice among the
  // ready threads.
  static constexpr uint32_t kMaxSlice = 64;

  SeededTail(SyncModel& model, uint64_t seed, bool slices = true);

  SchedulePolicy::Check CheckEvent(LogicalThread thread, const EventView& event,
                                   const WaitingThreads& waiting) override;
  void Execute(LogicalThread thread, const EventView& event) override;
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override;

 private:
  uint32_t DrawSlice();

  SyncModel& model_;
  SeededDraws draws_;
  bool slices_;
  uint32_t slice_left_ = 0;
  LogicalThread chosen_ = kNoThread;  // drawn by CheckEvent for the coming hand-over
};

}  // namespace pecan::replay
