// A clip followed step by step, then continued: once the clip's steps are done, or a thread
// leaves the clip (divergence), the threads stay serialized under a seeded choice to the end of
// the run (SeededTail). A replay is thus a function of the program, its inputs, the clip and
// the seed, and the failure it ends in comes back on every replay of what it executed. pecan
// fuzz is a clip of the main thread's first event continued by a strategy (random, PCT).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "replayer/clip_follow_policy.h"
#include "replayer/continuation.h"
#include "replayer/sync_model.h"

namespace pecan::replay {

class ContinuedClipPolicy final : public SchedulePolicy {
 public:
  // Told (by the turn holder) when a thread leaves the clip, with ClipFollowPolicy's one-line
  // description, just before the seeded tail takes over.
  using DivergenceListener = std::function<void(const std::string& description)>;

  ContinuedClipPolicy(ClipFollowPolicy& clip, const ContinuationSettings& continuation);
  void OnDivergence(DivergenceListener listener) { on_divergence_ = std::move(listener); }

  bool in_tail() const { return in_tail_.load(std::memory_order_acquire); }
  bool diverged() const { return diverged_.load(std::memory_order_acquire); }
  ClipFollowPolicy& clip() { return clip_; }

  LogicalThread IdentifyThread(LogicalThread parent, uint32_t ordinal) override;
  LogicalThread FirstHolder() override;
  bool WantsSettledThreads() const override { return in_tail(); }
  bool VacantTurnMayBeTaken() const override { return in_tail(); }
  Check CheckEvent(LogicalThread thread, const EventView& event,
                   const WaitingThreads& waiting) override;
  Progress Execute(LogicalThread thread, const EventView& event) override;
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override;
  bool OwnsNextStep(LogicalThread thread) const override;
  // The clip's steps and the tail's together (the watchdog's measure of progress).
  uint64_t StepsExecuted() const override;
  uint64_t StepsTotal() const override { return clip_.StepsTotal(); }
  std::string DescribeDivergence(LogicalThread thread, const EventView& event) const override;
  std::string DescribeNextStep() const override;
  std::string DescribeWait(LogicalThread thread, const EventView& event) const override;
  WaitTarget WaitTargetOf(LogicalThread thread, const EventView& event) const override {
    return model_.Target(thread, event);
  }
  bool BarrierReleased(LogicalThread thread, uint64_t barrier,
                       LogicalThread holder) const override {
    return model_.BarrierReleased(thread, barrier, holder);
  }
  std::string ThreadName(LogicalThread thread) const override;
  StopReport StopReportForPolicyStop() const override { return clip_.StopReportForPolicyStop(); }

 private:
  Check TailCheck(LogicalThread thread, const EventView& event, const WaitingThreads& waiting);

  ClipFollowPolicy& clip_;
  SyncModel model_;
  std::unique_ptr<Continuation> tail_;
  std::atomic<bool> in_tail_{false};
  std::atomic<bool> diverged_{false};
  std::atomic<uint64_t> tail_steps_{0};
  DivergenceListener on_divergence_;
  LogicalThread admitted_ = kNoThread;  // let into a blocking call, its event not yet reported
};

}  // namespace pecan::replay
