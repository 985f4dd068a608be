// The policy that follows a bug-hatching clip step by step (PECAN section 6.3): each event
// must be the next step's thread, kind and site, or the prediction is refuted by divergence;
// the anomaly counts as hatched only if its steps ran on one location in this very run.
#pragma once

#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "replayer/replay_schedule.h"
#include "replayer/schedule_policy.h"
#include "replayer/site_locator.h"
#include "trace_format/epoch_access_table.h"

namespace pecan::replay {

class ClipFollowPolicy final : public SchedulePolicy {
 public:
  ClipFollowPolicy(const ReplaySchedule& schedule, SiteLocator& locator);

  LogicalThread IdentifyThread(LogicalThread parent, uint32_t ordinal) override;
  LogicalThread FirstHolder() override;
  // A clip fixes the order: the waiting threads do not matter.
  Check CheckEvent(LogicalThread thread, const EventView& event,
                   const WaitingThreads& waiting) override;
  Progress Execute(LogicalThread thread, const EventView& event) override;
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override;
  bool OwnsNextStep(LogicalThread thread) const override;
  uint64_t StepsExecuted() const override { return position_.load(std::memory_order_acquire); }
  uint64_t StepsTotal() const override { return schedule_.steps.size(); }
  std::string DescribeDivergence(LogicalThread thread, const EventView& event) const override;
  std::string DescribeNextStep() const override;
  std::string ThreadName(LogicalThread thread) const override;
  StopReport StopReportForPolicyStop() const override { return refuted_; }

  // The runtime location of each anomaly step executed so far, in the pattern's order.
  struct SeenAccess {
    uint64_t address = 0;
    uint32_t size = 0;
  };
  const std::vector<SeenAccess>& anomaly_seen() const { return anomaly_seen_; }
  bool anomaly_formed() const { return anomaly_formed_; }
  // True when the anomaly formed with its last event not yet executed: every other event ran
  // and the last one's thread was stopped at it (same address), waiting for its turn.
  bool formed_with_last_pending() const { return formed_with_last_pending_; }

 private:
  Check CheckAfterMismatch(const ScheduleStep& step, const EventView& event, uint64_t repeat_of);
  bool AnomalyLocationsAgree();
  // Whether `event` is the step: same kind and site and, when the clip knows repeats, a repeat
  // of the same step (`repeat_of`, from RepeatOf) or, like the step, no repeat.
  bool Matches(const ScheduleStep& step, const EventView& event, uint64_t repeat_of) const;
  // The step whose access `thread`'s plain access `event` repeats in this epoch (the thread's
  // events since its last non-access event), or kNotARepeat: exact, unlike the recorder's
  // filter, which may let a repeat through (recorder/repeat_filter.h).
  uint64_t RepeatOf(LogicalThread thread, const EventView& event) const;
  // After `thread` executed `event` as step `position`: remembers a first access, or starts
  // a new epoch after any other event.
  void NoteExecuted(LogicalThread thread, const EventView& event, uint64_t position);
  // `thread` reported `event` while the next step is another thread's: if that is the
  // anomaly's last event and nothing else of `thread` comes first, remember where it stands.
  void NotePoised(LogicalThread thread, const EventView& event, uint64_t position);
  // True when the last anomaly step's thread has no step before it from `position` on.
  bool LastThreadGoesStraightThere(uint64_t position) const;
  // Whether the holder of the second-to-last anomaly step should first let the last step's
  // thread reach its event.
  bool StartPositioning(LogicalThread thread, uint64_t position);
  // After an anomaly step ran: with only the last one left and its thread stopped at it, the
  // anomaly has formed (a race's two accesses were both about to run on one location).
  bool FormsWithLastPending();

  const ReplaySchedule& schedule_;
  SiteLocator& locator_;
  std::vector<uint64_t> runtime_pc_;  // by site index
  bool located_again_ = false;
  std::atomic<uint64_t> position_{0};
  size_t next_anomaly_ = 0;
  std::vector<SeenAccess> anomaly_seen_;
  bool anomaly_formed_ = false;
  bool formed_with_last_pending_ = false;
  bool last_poised_ = false;  // the last anomaly step's thread waits at that very event
  SeenAccess last_poised_at_;
  // Before the anomaly's second-to-last step runs, the last step's thread gets the turn once
  // to reach its event, so both stand at their accesses when the first one runs (what makes a
  // race real) whatever the timing: kActive while it has the turn for that.
  enum class Positioning : uint8_t { kNotYet, kActive, kDone };
  std::atomic<Positioning> positioning_{Positioning::kNotYet};
  StopReport refuted_;
  std::unordered_map<uint64_t, LogicalThread> thread_by_path_;  // (parent << 32 | ordinal)
  // Per recorded thread, the first access of each kind in its current epoch, by the step it took.
  std::vector<EpochAccessTable> first_access_step_;
  std::vector<uint64_t> epoch_of_thread_;  // by LogicalThread
  // Repeats each thread ran without a step since its last step, against the next step's
  // repeats_before (by LogicalThread).
  std::vector<uint32_t> free_repeats_run_;
  bool repeated_too_often_ = false;  // the divergence was one repeat more than recorded
  std::atomic<LogicalThread> next_unrecorded_;
};

}  // namespace pecan::replay
