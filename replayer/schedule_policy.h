// The pluggable half of the replay scheduler: who runs next. The Scheduler (mechanism) passes
// the turn, blocks threads and runs the watchdog; a policy only answers questions about order.
#pragma once

#include <cstdint>
#include <string>

#include "replayer/scheduler_types.h"

namespace pecan::replay {

// Called by the Scheduler; CheckEvent/Execute/NextHolder only by the current turn holder (so a
// policy needs no locks for its position), the rest from any thread.
class SchedulePolicy {
 public:
  enum class Check : uint8_t {
    kMine,      // `event` is the next step and it is this thread's: execute it
    kNotMine,   // the next step belongs to another thread: hand the turn over and wait
    kDiverged,  // this thread's next step is something else: the schedule cannot be followed
    kFree,      // this thread's turn, and `event` may run now without taking a step (an access
                // the recording left out as a repeat)
  };
  // What executing a step led to; usually all false.
  struct Progress {
    bool anomaly_formed = false;  // the policy's goal just happened (e.g. the anomaly hatched)
    bool finished = false;        // that was the last step: let every thread run freely
    bool stop = false;            // the policy ended the run (StopReportForPolicyStop() says why)
  };

  virtual ~SchedulePolicy() = default;

  // The logical identity of a thread from its creation path; parent == kNoThread for the main
  // thread. Threads the schedule does not know get ids of their own (they never get the turn).
  virtual LogicalThread IdentifyThread(LogicalThread parent, uint32_t ordinal) = 0;
  // Who holds the turn when scheduling starts.
  virtual LogicalThread FirstHolder() = 0;

  virtual Check CheckEvent(LogicalThread thread, const EventView& event) = 0;
  // Records that `event` (just checked kMine) executes now.
  virtual Progress Execute(LogicalThread thread, const EventView& event) = 0;
  // Who should get the turn now that `from` (the holder) gives it up.
  virtual LogicalThread NextHolder(LogicalThread from) = 0;
  // Whether the next step belongs to `thread` (the watchdog asks before taking a turn away).
  virtual bool OwnsNextStep(LogicalThread thread) const = 0;

  virtual uint64_t StepsExecuted() const = 0;
  virtual uint64_t StepsTotal() const = 0;

  // One-line descriptions for verdicts (called once, when the run stops).
  virtual std::string DescribeDivergence(LogicalThread thread, const EventView& event) const = 0;
  virtual std::string DescribeNextStep() const = 0;
  virtual std::string ThreadName(LogicalThread thread) const = 0;
  virtual StopReport StopReportForPolicyStop() const = 0;
};

// Told about the run's milestones. The runtime writes verdicts and ends the process here; tests
// just record what happened.
class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  virtual void OnAnomalyFormed() = 0;     // the policy's goal event happened (e.g. hatched)
  virtual void OnScheduleFinished() = 0;  // every step done: threads now run freely
  virtual void OnStopped(const StopReport& report) = 0;  // scheduling ended early
};

}  // namespace pecan::replay
