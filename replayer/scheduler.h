// The replay scheduler's mechanism: one turn, passed between threads by their semaphores, so
// threads execute instrumented events in the order a SchedulePolicy dictates.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "replayer/execution_log.h"
#include "replayer/schedule_policy.h"
#include "replayer/scheduler_types.h"
#include "replayer/thread_slot.h"

namespace pecan::replay {

enum class SchedulerMode : uint8_t {
  kScheduling,  // threads run one at a time, in the policy's order
  kFreeRun,     // the schedule is done: threads run as the OS pleases
  kStopping,    // ending early: the observer is told; meanwhile no waiting thread goes on
  kStopped,     // scheduling ended early (see the StopReport given to the observer)
};

// Entry points named "calling thread" act on the thread that calls them. Event hooks must be
// called BEFORE the event takes effect (as ThreadSanitizer callbacks are). The turn is handed
// over lazily: a thread that executed the last step of its run keeps the turn until it reaches
// its next event, blocks or exits, so the access it reported has really happened before the
// next thread continues.
class Scheduler {
 public:
  struct Options {
    size_t max_threads = 4096;  // logical ids at or above this stop the run (kInternal)
    std::chrono::milliseconds wait_slice{50};  // longest single sleep; waits re-check after it
    uint32_t spin_before_sleep = 0;            // polls of the turn before sleeping on the semaphore
    // For policies that want settled threads: the longest wait for a thread that runs
    // uninstrumented code (it then counts as not waiting, and the choice may vary by run:
    // counted in unsettled_choices).
    std::chrono::milliseconds settle_bound{200};
  };

  Scheduler(SchedulePolicy& policy, ReplayObserver& observer, Options options);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Thread lifecycle (calling thread). A parent calls ReserveChild() before creating a thread
  // and passes the id to the child, which calls AttachThread(id) before its first event.
  void AttachMainThread();
  // `serial`: the recorder's serial number of the child (JOINs name threads by it).
  LogicalThread ReserveChild(uint32_t serial = ThreadSlot::kNoSerial);
  void CancelChild(LogicalThread child);  // the thread could not be created after all
  void ChildForked(LogicalThread child);  // the parent executed the child's FORK
  void AttachThread(LogicalThread id);
  void DetachThread();  // after the thread's last event
  bool CallerAttached() const;
  LogicalThread CallerId() const;

  // The calling thread is about to execute `event`: returns when it may (or when scheduling
  // ended). Costs no system call while the schedule stays on this thread.
  void OnEvent(const EventView& event);

  // Around a blocking call whose event is reported only after the call returns (lock, rwlock,
  // semaphore wait, join): waits for the turn and checks the upcoming event BEFORE the call, so
  // two threads never race for the real object. If the real call then blocks, the run is
  // deadlocked and the watchdog says so. Call EndBlocking() when the real call returns.
  void AcquireTurnFor(const EventView& upcoming);
  // Around a blocking call that needs other threads to run first (barrier wait): hands the turn
  // on if the schedule continues elsewhere. Call EndBlocking() when the real call returns.
  void BeginBlocking(const EventView& call);
  void EndBlocking();

  SchedulerMode mode() const { return mode_.load(std::memory_order_acquire); }
  bool scheduling() const { return mode() == SchedulerMode::kScheduling; }

  // Ends scheduling early (first caller wins); the observer hears about it.
  void Stop(StopReport report);

  // For the watchdog (any thread).
  struct Snapshot {
    SchedulerMode mode = SchedulerMode::kScheduling;
    uint64_t progress = 0;  // changes whenever a step executes or a thread changes activity
    LogicalThread holder = kNoThread;
    ThreadActivity holder_activity = ThreadActivity::kUnattached;
    int32_t holder_os_tid = 0;
    bool holder_owns_next_step = false;
    // The policy chooses among the waiting threads (SchedulePolicy::WantsSettledThreads): a
    // seeded strategy, whose runs must not depend on timing.
    bool policy_chooses = false;
    size_t live_threads = 0;
    bool every_live_thread_waits = false;  // all waiting for the turn or blocked
  };
  Snapshot Inspect() const;
  // Takes the turn from a holder idle in uninstrumented code when the schedule continues on
  // another thread that waits at an event. Returns whether the turn moved.
  bool HandOverFromIdleHolder(LogicalThread holder);
  // "T0 waiting for its turn, T1 blocked in ...; next: step 12 of 40, T1 lock at ..."
  std::string DescribeState() const;
  // Every live thread and what it waits at or in (when a run is stopped as stuck).
  std::vector<StuckThread> StuckThreads() const;
  // Times a policy chose the next holder while a thread still had not settled after
  // settle_bound (it runs uninstrumented code, or a loaded machine has not run it yet): each is
  // a timing-dependent choice, so a run with any may not repeat exactly from its seed.
  uint64_t unsettled_choices() const { return unsettled_choices_.load(std::memory_order_relaxed); }

  SchedulePolicy& policy() { return policy_; }

  // Records every event that goes ahead under the turn, and each thread's creation path, into
  // `log` (which must outlive the scheduler). Set before any thread attaches.
  void LogExecutionTo(ExecutionLog* log) { log_ = log; }

 private:
  class WaitingView;
  ThreadSlot* SlotFor(LogicalThread id) const;
  void Attach(LogicalThread id);
  void SetActivity(ThreadSlot& slot, ThreadActivity activity);
  static void NoteCall(ThreadSlot& self, const EventView& call);  // entering a blocking call
  // Whether the blocking call `slot`'s thread is in (without the turn) has what it waits for,
  // so the thread comes back soon: Settle waits for it.
  bool CallReleased(const ThreadSlot& slot, LogicalThread holder) const;
  bool WaitForTurn(ThreadSlot& self);  // false when scheduling ended meanwhile
  // While the observer hears about an early stop (it may write files and end the process), a
  // thread that waits for the turn or reaches an event stays where it is.
  void HoldWhileStopping(ThreadSlot& self);
  // Waits until every live thread other than `holder` waits at an event, is blocked or has
  // ended (see SchedulePolicy::WantsSettledThreads), at most settle_bound (then counted in
  // unsettled_choices_).
  void Settle(LogicalThread holder) const;
  bool PassTurn(LogicalThread from);  // false when `from` no longer held the turn
  // Takes the turn for `self` if nobody holds it and the policy allows (VacantTurnMayBeTaken).
  void TakeVacantTurn(const ThreadSlot& self);
  void LogExecuted(LogicalThread thread, const EventView& event) {
    if (log_ != nullptr) log_->Append(thread, event.kind, event.pc);
    const uint64_t count = recent_count_.load(std::memory_order_relaxed);
    recent_[count % kRecentEvents] = {thread, event.kind, event.pc};
    recent_count_.store(count + 1, std::memory_order_release);
  }
  void ReleaseTurnAtExit(ThreadSlot& self);
  void HandleProgress(const SchedulePolicy::Progress& progress);
  void Finish();
  void WakeEveryone();

  SchedulePolicy& policy_;
  ReplayObserver& observer_;
  Options options_;
  std::unique_ptr<ThreadSlot[]> slots_;
  std::atomic<SchedulerMode> mode_{SchedulerMode::kScheduling};
  std::atomic<LogicalThread> holder_{kNoThread};
  std::atomic<uint64_t> transitions_{0};
  std::atomic<LogicalThread> highest_slot_used_{0};
  ExecutionLog* log_ = nullptr;
  // The last events run under the turn, always kept (the execution log is not): a stuck run's
  // report counts a spinning thread's repeats in them.
  static constexpr uint64_t kRecentEvents = 4096;
  struct RecentEvent {
    LogicalThread thread = kNoThread;
    EventKind kind = EventKind::kUnspecified;
    uint64_t pc = 0;
  };
  std::unique_ptr<RecentEvent[]> recent_{new RecentEvent[kRecentEvents]};
  std::atomic<uint64_t> recent_count_{0};
  mutable std::atomic<uint64_t> unsettled_choices_{0};  // Settle is const
  std::atomic_flag turn_guard_ = ATOMIC_FLAG_INIT;  // see TurnGuard (scheduler.cpp)
};

}  // namespace pecan::replay
