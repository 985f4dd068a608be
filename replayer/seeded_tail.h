// How a replay goes on once its clip is done or a thread left it: the threads stay serialized
// and the next one is a seeded choice among those ready to run, so the rest of the run is a
// function of the clip and the seed, and whatever failure follows happens again.
#pragma once

#include <cstdint>
#include <string>

#include "replayer/schedule_policy.h"
#include "replayer/sync_model.h"

namespace pecan::replay {

class SeededTail {
 public:
  // The holder keeps the turn for a slice of 1..kMaxSlice events (drawn from the seed) while it
  // can run, then the next holder is drawn among the ready threads: switches stay rare (a
  // replay runs fast on one thread), and a thread spinning on a flag another must set cannot
  // hold the turn forever.
  static constexpr uint32_t kMaxSlice = 64;

  SeededTail(SyncModel& model, uint64_t seed);

  // SchedulePolicy's questions, asked only once the tail has begun (by the turn holder).
  SchedulePolicy::Check CheckEvent(LogicalThread thread, const EventView& event,
                                   const WaitingThreads& waiting);
  void Execute(LogicalThread thread, const EventView& event);
  // kNoThread when no waiting thread is ready: the turn is free for the next thread that
  // reaches an event, and if every thread waits the watchdog reports a deadlock.
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting);

 private:
  uint64_t Next();  // splitmix64
  uint32_t DrawSlice();

  SyncModel& model_;
  uint64_t state_;
  uint32_t slice_left_ = 0;
  LogicalThread chosen_ = kNoThread;  // drawn by CheckEvent for the coming hand-over
};

}  // namespace pecan::replay
