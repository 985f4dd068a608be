// The pluggable half of the replay scheduler: who runs next. The Scheduler (mechanism) passes
// the turn, blocks threads and runs the watchdog; a policy only answers questions about order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "replayer/scheduler_types.h"

namespace pecan::replay {

// The threads that wait for the turn at an event they have reported, each with that event, as
// the turn holder sees them: what a strategy chooses among. The holder's own event is included.
// Active strategies need exactly this: a seeded random or PCT policy picks one of them, and
// RaceFuzzer postpones a thread about to make a racing access until another one is about to
// make the conflicting access.
class WaitingThreads {
 public:
  virtual ~WaitingThreads() = default;
  // Calls visit(thread, event) for each waiting thread, in LogicalThread order.
  virtual void ForEach(const std::function<void(LogicalThread, const EventView&)>& visit) const = 0;
};

// Called by the Scheduler; CheckEvent/Execute/NextHolder only by the current turn holder (so a
// policy needs no locks for its position), the rest from any thread. Following a clip is one
// policy (ClipFollowPolicy); a seeded strategy is another, over the same Scheduler and Watchdog.
class SchedulePolicy {
 public:
  enum class Check : uint8_t {
    kMine,      // `event` is the next step and it is this thread's: execute it
    kNotMine,   // the next step belongs to another thread: hand the turn over and wait
    kDiverged,  // this thread's next step is something else: the schedule cannot be followed
    kFree,      // this thread's turn, and `event` may run now without taking a step (an access
                // the recording left out as a repeat)
    // Before a blocking call (Scheduler::AcquireTurnFor) that waits for other threads and holds
    // nothing they need (join, semaphore wait): make the call without the turn, which goes on
    // to the next holder; the event itself asks for the turn again once the call returned.
    kMineWithoutTurn,
  };
  // What executing a step led to; usually all false.
  struct Progress {
    bool anomaly_formed = false;  // the policy's goal just happened (e.g. the anomaly hatched)
    bool finished = false;        // that was the last step: let every thread run freely
    bool continued = false;       // that was the clip's last step; scheduling goes on
    bool stop = false;            // the policy ended the run (StopReportForPolicyStop() says why)
  };

  virtual ~SchedulePolicy() = default;

  // The logical identity of a thread from its creation path; parent == kNoThread for the main
  // thread. Threads the schedule does not know get ids of their own (they never get the turn).
  virtual LogicalThread IdentifyThread(LogicalThread parent, uint32_t ordinal) = 0;
  // Who holds the turn when scheduling starts.
  virtual LogicalThread FirstHolder() = 0;
  // Whether CheckEvent and NextHolder must see every thread that can reach an event: the
  // Scheduler then first waits (bounded by Options::settle_bound) until each live thread other
  // than the holder waits at an event, is blocked, or has ended, so a seeded strategy makes
  // the same choices in every run. A clip names its threads itself and needs no such wait.
  virtual bool WantsSettledThreads() const { return false; }
  // Whether a thread reaching an event may take the turn when nobody holds it (the policy found
  // no thread ready when the last holder gave it up). A clip always names the next holder.
  virtual bool VacantTurnMayBeTaken() const { return false; }

  virtual Check CheckEvent(LogicalThread thread, const EventView& event,
                           const WaitingThreads& waiting) = 0;
  // Records that `event` (just checked kMine) executes now.
  virtual Progress Execute(LogicalThread thread, const EventView& event) = 0;
  // Who should get the turn now that `from` (the holder) gives it up.
  virtual LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) = 0;
  // Whether the next step belongs to `thread` (the watchdog asks before taking a turn away).
  virtual bool OwnsNextStep(LogicalThread thread) const = 0;

  virtual uint64_t StepsExecuted() const = 0;
  virtual uint64_t StepsTotal() const = 0;

  // One-line descriptions for verdicts (called once, when the run stops).
  virtual std::string DescribeDivergence(LogicalThread thread, const EventView& event) const = 0;
  virtual std::string DescribeNextStep() const = 0;
  // What `thread`, waiting at `event`, waits for beyond its turn ("lock 0x... held by T2"), or
  // "" (for the watchdog's description of a deadlock).
  virtual std::string DescribeWait(LogicalThread, const EventView&) const { return ""; }
  // The same as data (Object::kNone when the policy keeps no model or the thread is ready).
  virtual WaitTarget WaitTargetOf(LogicalThread, const EventView&) const { return {}; }
  // Whether `thread`, waiting at `barrier` without the turn, is released and so returns soon
  // (Scheduler::Settle then waits for it); `holder` is the thread asking (see SyncModel).
  virtual bool BarrierReleased(LogicalThread, uint64_t /*barrier*/,
                               LogicalThread /*holder*/) const {
    return false;
  }
  virtual std::string ThreadName(LogicalThread thread) const = 0;
  virtual StopReport StopReportForPolicyStop() const = 0;
};

// Told about the run's milestones. The runtime writes verdicts and ends the process here; tests
// just record what happened.
class ReplayObserver {
 public:
  virtual ~ReplayObserver() = default;
  virtual void OnAnomalyFormed() = 0;     // the policy's goal event happened (e.g. hatched)
  virtual void OnScheduleFinished() = 0;  // every step done (threads run freely, or continue)
  virtual void OnStopped(const StopReport& report) = 0;  // scheduling ended early
};

}  // namespace pecan::replay
