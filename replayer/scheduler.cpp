// Turn passing, lazy hand-over, blocking calls and early stops: the Scheduler's mechanism.
#include "replayer/scheduler.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>

namespace pecan::replay {
namespace {

// Which scheduler slot the calling thread runs as. initial-exec: the runtime is loaded at
// program start, and every event reads this.
struct CallerBinding {
  const Scheduler* scheduler = nullptr;
  ThreadSlot* slot = nullptr;
};
__attribute__((tls_model("initial-exec"))) thread_local CallerBinding tls_caller;

inline void CpuRelax() {
  __builtin_ia32_pause();
}

// Publishes the calling thread's upcoming event for policies while it waits for its turn, and
// withdraws it however the wait ends.
class PendingEvent {
 public:
  PendingEvent(ThreadSlot& slot, const EventView& event) : slot_(slot) {
    slot_.pending = event;
    slot_.waiting_at_event.store(true, std::memory_order_release);
  }
  ~PendingEvent() { Withdraw(); }
  // The thread may go on: from now on it is not waiting, whatever it does before returning
  // (hand the turn over at its end, say) — or the next holder would see it one run and not
  // the next.
  void Withdraw() { slot_.waiting_at_event.store(false, std::memory_order_release); }
  PendingEvent(const PendingEvent&) = delete;
  PendingEvent& operator=(const PendingEvent&) = delete;

 private:
  ThreadSlot& slot_;
};

// While a seeded policy schedules, the holder keeps the turn guarded from checking its event to
// executing (and logging) it: the watchdog's hand-over from an idle holder (HandOverFromIdleHolder)
// must not move the turn in between, or two threads would run events at once. A clip needs no
// guard: the watchdog never takes the turn from the thread whose step is next.
class TurnGuard {
 public:
  TurnGuard(std::atomic_flag& flag, bool active) : flag_(active ? &flag : nullptr) {
    if (flag_ == nullptr) return;
    // Held briefly (a check and an event) by the holder, or by the watchdog: spin, then yield.
    for (uint32_t spins = 0; flag_->test_and_set(std::memory_order_acquire); ++spins) {
      if (spins < 256) {
        CpuRelax();
      } else {
        sched_yield();
      }
    }
  }
  ~TurnGuard() {
    if (flag_ != nullptr) flag_->clear(std::memory_order_release);
  }
  TurnGuard(const TurnGuard&) = delete;
  TurnGuard& operator=(const TurnGuard&) = delete;

 private:
  std::atomic_flag* flag_;
};

}  // namespace

// The slots of threads that wait at an event: what policies see as WaitingThreads.
class Scheduler::WaitingView final : public WaitingThreads {
 public:
  explicit WaitingView(const Scheduler& scheduler) : scheduler_(scheduler) {}
  void ForEach(const std::function<void(LogicalThread, const EventView&)>& visit) const override {
    const LogicalThread highest = scheduler_.highest_slot_used_.load(std::memory_order_acquire);
    for (LogicalThread id = 0; id <= highest && id < scheduler_.options_.max_threads; ++id) {
      const ThreadSlot& slot = scheduler_.slots_[id];
      if (slot.waiting_at_event.load(std::memory_order_acquire)) visit(id, slot.pending);
    }
  }

 private:
  const Scheduler& scheduler_;
};

Scheduler::Scheduler(SchedulePolicy& policy, ReplayObserver& observer, Options options)
    : policy_(policy),
      observer_(observer),
      options_(options),
      slots_(new ThreadSlot[options.max_threads]) {
  for (size_t i = 0; i < options_.max_threads; ++i) slots_[i].id = static_cast<LogicalThread>(i);
  holder_.store(policy_.FirstHolder(), std::memory_order_release);
}

Scheduler::~Scheduler() {
  if (tls_caller.scheduler == this) tls_caller = {};
}

ThreadSlot* Scheduler::SlotFor(LogicalThread id) const {
  return id < options_.max_threads ? &slots_[id] : nullptr;
}

bool Scheduler::CallerAttached() const {
  return tls_caller.scheduler == this;
}

LogicalThread Scheduler::CallerId() const {
  return CallerAttached() ? tls_caller.slot->id : kNoThread;
}

void Scheduler::SetActivity(ThreadSlot& slot, ThreadActivity activity) {
  slot.activity.store(activity, std::memory_order_release);
  transitions_.fetch_add(1, std::memory_order_relaxed);
}

void Scheduler::Attach(LogicalThread id) {
  ThreadSlot* slot = SlotFor(id);
  if (slot == nullptr) {
    Stop({StopCause::kInternal,
          "more threads than the replayer supports (" + std::to_string(options_.max_threads) + ")",
          0});
    return;
  }
  slot->os_tid.store(static_cast<int32_t>(syscall(SYS_gettid)), std::memory_order_relaxed);
  slot->children = 0;
  LogicalThread highest = highest_slot_used_.load(std::memory_order_relaxed);
  while (id > highest &&
         !highest_slot_used_.compare_exchange_weak(highest, id, std::memory_order_relaxed)) {
  }
  // One store ends "starting": a thread that Settle saw starting is seen running next, never
  // in between as settled.
  SetActivity(*slot, ThreadActivity::kRunning);
  tls_caller = {this, slot};
}

void Scheduler::AttachMainThread() {
  const LogicalThread id = policy_.IdentifyThread(kNoThread, 0);
  if (log_ != nullptr) log_->NoteThread(id, kNoThread, 0);
  Attach(id);
  if (ThreadSlot* slot = SlotFor(id)) slot->serial.store(0, std::memory_order_release);
}

LogicalThread Scheduler::ReserveChild(uint32_t serial) {
  if (!CallerAttached()) return kNoThread;
  ThreadSlot& parent = *tls_caller.slot;
  const uint32_t ordinal = parent.children++;
  LogicalThread child = policy_.IdentifyThread(parent.id, ordinal);
  if (log_ != nullptr) log_->NoteThread(child, parent.id, ordinal);
  if (ThreadSlot* slot = SlotFor(child)) {
    // Counted as live and not waiting until it attaches, so a thread that is still starting
    // never looks like a deadlock.
    slot->os_tid.store(0, std::memory_order_relaxed);
    slot->awaiting_fork.store(true, std::memory_order_release);
    slot->serial.store(serial, std::memory_order_release);
    SetActivity(*slot, ThreadActivity::kStarting);
    LogicalThread highest = highest_slot_used_.load(std::memory_order_relaxed);
    while (child > highest &&
           !highest_slot_used_.compare_exchange_weak(highest, child, std::memory_order_relaxed)) {
    }
  }
  return child;
}

void Scheduler::ChildForked(LogicalThread child) {
  if (ThreadSlot* slot = SlotFor(child))
    slot->awaiting_fork.store(false, std::memory_order_release);
}

void Scheduler::CancelChild(LogicalThread child) {
  if (ThreadSlot* slot = SlotFor(child)) {
    slot->awaiting_fork.store(false, std::memory_order_release);
    slot->os_tid.store(0, std::memory_order_relaxed);
    SetActivity(*slot, ThreadActivity::kExited);
  }
}

void Scheduler::AttachThread(LogicalThread id) {
  if (id == kNoThread) return;
  Attach(id);
}

void Scheduler::DetachThread() {
  if (!CallerAttached()) return;
  ThreadSlot& self = *tls_caller.slot;
  ReleaseTurnAtExit(self);
  SetActivity(self, ThreadActivity::kExited);
  tls_caller = {};
}

void Scheduler::ReleaseTurnAtExit(ThreadSlot& self) {
  if (!scheduling() || holder_.load(std::memory_order_acquire) != self.id) return;
  if (policy_.OwnsNextStep(self.id)) {
    Stop({StopCause::kThreadVanished,
          policy_.ThreadName(self.id) + " ended while the schedule still expects its " +
              policy_.DescribeNextStep(),
          0});
    return;
  }
  PassTurn(self.id);
}

bool Scheduler::PassTurn(LogicalThread from) {
  if (policy_.WantsSettledThreads()) Settle(from);
  LogicalThread next = policy_.NextHolder(from, WaitingView(*this));
  LogicalThread expected = from;
  if (!holder_.compare_exchange_strong(expected, next, std::memory_order_seq_cst)) return false;
  transitions_.fetch_add(1, std::memory_order_relaxed);
  if (next == kNoThread && policy_.VacantTurnMayBeTaken()) {
    // A thread that reached its event after the policy looked, but before the turn was left
    // free, found the turn still held and waits: look once more (TakeVacantTurn is the other
    // half: each side publishes before it reads the other's state).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    next = policy_.NextHolder(from, WaitingView(*this));
    LogicalThread vacant = kNoThread;
    if (next == kNoThread ||
        !holder_.compare_exchange_strong(vacant, next, std::memory_order_seq_cst))
      return true;
  }
  if (ThreadSlot* slot = SlotFor(next)) slot->wake.Post();
  return true;
}

void Scheduler::Settle(LogicalThread holder) const {
  const auto deadline = std::chrono::steady_clock::now() + options_.settle_bound;
  for (uint32_t round = 0;; ++round) {
    bool settled = true;
    const LogicalThread highest = highest_slot_used_.load(std::memory_order_acquire);
    for (LogicalThread id = 0; id <= highest && id < options_.max_threads && settled; ++id) {
      if (id == holder) continue;
      const ThreadSlot& slot = slots_[id];
      const ThreadActivity activity = slot.activity.load(std::memory_order_acquire);
      // A child whose FORK is still to come cannot start before the FORK: not waited for.
      const bool starting = activity == ThreadActivity::kStarting &&
                            !slot.awaiting_fork.load(std::memory_order_acquire);
      settled = !starting &&
                (activity != ThreadActivity::kRunning ||
                 slot.waiting_at_event.load(std::memory_order_acquire)) &&
                !(activity == ThreadActivity::kBlocked && CallReleased(slot, holder));
    }
    if (settled || !scheduling()) return;
    if (std::chrono::steady_clock::now() > deadline) {
      unsettled_choices_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    if (round < 1000) {
      CpuRelax();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

bool Scheduler::CallReleased(const ThreadSlot& slot, LogicalThread holder) const {
  if (!slot.in_call.load(std::memory_order_acquire)) return false;
  const EventView& call = slot.call;
  const LogicalThread highest = highest_slot_used_.load(std::memory_order_acquire);
  if (call.kind == EventKind::kJoin) {
    // A join returns once the joined thread has ended, unless that thread is the one asking
    // (it passes the turn on at its THREAD_END, before it is gone).
    for (LogicalThread id = 0; id <= highest && id < options_.max_threads; ++id) {
      if (slots_[id].serial.load(std::memory_order_acquire) != call.addr) continue;
      return id != holder &&
             (slots_[id].ended.load(std::memory_order_acquire) ||
              slots_[id].activity.load(std::memory_order_acquire) == ThreadActivity::kExited);
    }
    return false;
  }
  return call.kind == EventKind::kBarrierDepart &&
         policy_.BarrierReleased(slot.id, call.addr, holder);
}

void Scheduler::HoldWhileStopping(ThreadSlot& self) {
  while (mode() == SchedulerMode::kStopping) {
    const uint32_t ticket = self.wake.Ticket();
    if (mode() != SchedulerMode::kStopping) break;
    self.wake.WaitUntilPosted(ticket, options_.wait_slice);
  }
}

bool Scheduler::WaitForTurn(ThreadSlot& self) {
  for (uint32_t i = 0; i < options_.spin_before_sleep; ++i) {
    if (holder_.load(std::memory_order_acquire) == self.id) return scheduling();
    if (!scheduling()) break;
    CpuRelax();
  }
  SetActivity(self, ThreadActivity::kWaitingForTurn);
  bool turn = false;
  for (;;) {
    uint32_t ticket = self.wake.Ticket();
    if (mode() == SchedulerMode::kStopping) {
      HoldWhileStopping(self);
      continue;
    }
    if (!scheduling()) break;
    if (holder_.load(std::memory_order_acquire) == self.id) {
      turn = true;
      break;
    }
    self.wake.WaitUntilPosted(ticket, options_.wait_slice);
  }
  SetActivity(self, ThreadActivity::kRunning);
  return turn;
}

void Scheduler::OnEvent(const EventView& event) {
  if (tls_caller.scheduler != this) return;
  if (mode_.load(std::memory_order_relaxed) != SchedulerMode::kScheduling) {
    HoldWhileStopping(*tls_caller.slot);
    return;
  }
  ThreadSlot& self = *tls_caller.slot;
  self.owes_event.store(false, std::memory_order_release);
  PendingEvent pending(self, event);
  TakeVacantTurn(self);
  for (;;) {
    // Only the holder takes the guard: threads that merely look would hold up the holder.
    if (holder_.load(std::memory_order_acquire) != self.id) {
      if (!WaitForTurn(self)) return;
      continue;
    }
    if (TurnGuard guard(turn_guard_, policy_.WantsSettledThreads());
        holder_.load(std::memory_order_acquire) == self.id) {
      if (policy_.WantsSettledThreads()) Settle(self.id);
      switch (policy_.CheckEvent(self.id, event, WaitingView(*this))) {
        case SchedulePolicy::Check::kMine:
        case SchedulePolicy::Check::kMineWithoutTurn: {  // (only for blocking calls)
          pending.Withdraw();
          LogExecuted(self.id, event);
          SchedulePolicy::Progress progress = policy_.Execute(self.id, event);
          if (event.kind == EventKind::kThreadEnd)
            self.ended.store(true, std::memory_order_release);
          if (progress.anomaly_formed || progress.finished || progress.stop || progress.continued) {
            HandleProgress(progress);
          } else if (event.kind == EventKind::kThreadEnd) {
            ReleaseTurnAtExit(self);  // nothing of this thread follows: no reason to wait
          }
          return;
        }
        case SchedulePolicy::Check::kNotMine:
          PassTurn(self.id);
          break;
        case SchedulePolicy::Check::kDiverged:
          Stop({StopCause::kDivergence, policy_.DescribeDivergence(self.id, event), 0});
          return;
        case SchedulePolicy::Check::kFree:
          LogExecuted(self.id, event);
          return;
      }
    }
    if (!WaitForTurn(self)) return;
  }
}

void Scheduler::TakeVacantTurn(const ThreadSlot& self) {
  // The caller has published its pending event (PendingEvent): see PassTurn.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  LogicalThread vacant = kNoThread;
  if (holder_.load(std::memory_order_seq_cst) == kNoThread && policy_.VacantTurnMayBeTaken() &&
      holder_.compare_exchange_strong(vacant, self.id, std::memory_order_seq_cst))
    transitions_.fetch_add(1, std::memory_order_relaxed);
}

void Scheduler::AcquireTurnFor(const EventView& upcoming) {
  if (tls_caller.scheduler != this || !scheduling()) return;
  ThreadSlot& self = *tls_caller.slot;
  EventView blocking = upcoming;
  blocking.blocking = true;
  PendingEvent pending(self, blocking);
  TakeVacantTurn(self);
  for (;;) {
    // Only the holder takes the guard: threads that merely look would hold up the holder.
    if (holder_.load(std::memory_order_acquire) != self.id) {
      if (!WaitForTurn(self)) return;
      continue;
    }
    if (TurnGuard guard(turn_guard_, policy_.WantsSettledThreads());
        holder_.load(std::memory_order_acquire) == self.id) {
      if (policy_.WantsSettledThreads()) Settle(self.id);
      switch (policy_.CheckEvent(self.id, blocking, WaitingView(*this))) {
        case SchedulePolicy::Check::kMine:
        case SchedulePolicy::Check::kFree:  // (never for a blocking call: not an access)
          self.owes_event.store(true, std::memory_order_release);
          NoteCall(self, blocking);
          SetActivity(self, ThreadActivity::kBlockedHoldingTurn);
          return;
        case SchedulePolicy::Check::kMineWithoutTurn:
          pending.Withdraw();
          NoteCall(self, blocking);
          PassTurn(self.id);
          SetActivity(self, ThreadActivity::kBlocked);
          return;
        case SchedulePolicy::Check::kNotMine:
          PassTurn(self.id);
          break;
        case SchedulePolicy::Check::kDiverged:
          Stop({StopCause::kDivergence, policy_.DescribeDivergence(self.id, blocking), 0});
          return;
      }
    }
    if (!WaitForTurn(self)) return;
  }
}

void Scheduler::NoteCall(ThreadSlot& self, const EventView& call) {
  self.call = call;
  self.in_call.store(true, std::memory_order_release);
}

void Scheduler::BeginBlocking(const EventView& call) {
  if (tls_caller.scheduler != this || !scheduling()) return;
  ThreadSlot& self = *tls_caller.slot;
  NoteCall(self, call);
  bool holds_turn = holder_.load(std::memory_order_acquire) == self.id;
  if (holds_turn && !policy_.OwnsNextStep(self.id)) {
    PassTurn(self.id);
    holds_turn = false;
  }
  SetActivity(self, holds_turn ? ThreadActivity::kBlockedHoldingTurn : ThreadActivity::kBlocked);
}

void Scheduler::EndBlocking() {
  if (tls_caller.scheduler != this) return;
  // Running first: a thread blocked and not in a call would look settled to Settle.
  SetActivity(*tls_caller.slot, ThreadActivity::kRunning);
  tls_caller.slot->in_call.store(false, std::memory_order_release);
}

void Scheduler::HandleProgress(const SchedulePolicy::Progress& progress) {
  if (progress.stop) {
    Stop(policy_.StopReportForPolicyStop());
    return;
  }
  if (progress.anomaly_formed) observer_.OnAnomalyFormed();
  if (progress.continued) observer_.OnScheduleFinished();
  if (progress.finished) Finish();
}

void Scheduler::Finish() {
  SchedulerMode expected = SchedulerMode::kScheduling;
  if (!mode_.compare_exchange_strong(expected, SchedulerMode::kFreeRun, std::memory_order_acq_rel))
    return;
  observer_.OnScheduleFinished();
  WakeEveryone();
}

void Scheduler::Stop(StopReport report) {
  SchedulerMode expected = SchedulerMode::kScheduling;
  if (!mode_.compare_exchange_strong(expected, SchedulerMode::kStopping, std::memory_order_acq_rel))
    return;
  report.steps_executed = policy_.StepsExecuted();
  observer_.OnStopped(report);
  mode_.store(SchedulerMode::kStopped, std::memory_order_release);
  WakeEveryone();
}

void Scheduler::WakeEveryone() {
  LogicalThread highest = highest_slot_used_.load(std::memory_order_acquire);
  for (LogicalThread id = 0; id <= highest && id < options_.max_threads; ++id)
    slots_[id].wake.Post();
}

Scheduler::Snapshot Scheduler::Inspect() const {
  Snapshot snap;
  snap.mode = mode();
  snap.progress = policy_.StepsExecuted() + transitions_.load(std::memory_order_acquire);
  snap.holder = holder_.load(std::memory_order_acquire);
  if (ThreadSlot* holder = SlotFor(snap.holder)) {
    snap.holder_activity = holder->activity.load(std::memory_order_acquire);
    snap.holder_os_tid = holder->os_tid.load(std::memory_order_relaxed);
  }
  snap.holder_owns_next_step = snap.holder != kNoThread && policy_.OwnsNextStep(snap.holder);
  snap.policy_chooses = policy_.WantsSettledThreads();
  bool all_wait = true;
  LogicalThread highest = highest_slot_used_.load(std::memory_order_acquire);
  for (LogicalThread id = 0; id <= highest && id < options_.max_threads; ++id) {
    ThreadActivity activity = slots_[id].activity.load(std::memory_order_acquire);
    const bool starting = activity == ThreadActivity::kStarting;
    if (activity == ThreadActivity::kExited || activity == ThreadActivity::kUnattached) continue;
    ++snap.live_threads;
    if (starting || activity == ThreadActivity::kRunning) all_wait = false;
    // A holder that was woken but has not run yet is about to make progress.
    if (id == snap.holder && activity == ThreadActivity::kWaitingForTurn) all_wait = false;
  }
  snap.every_live_thread_waits = all_wait && snap.live_threads > 0;
  return snap;
}

bool Scheduler::HandOverFromIdleHolder(LogicalThread holder) {
  // A holder busy with an event (TurnGuard) is not idle.
  if (turn_guard_.test_and_set(std::memory_order_acquire)) return false;
  bool moved = false;
  // The holder has none of the next steps, so the position cannot move until the turn does;
  // and it does not owe the event of a blocking call it was let into.
  const ThreadSlot* slot = SlotFor(holder);
  // And some other thread waits at an event: otherwise nobody could take the turn, and asking
  // the policy for a next holder (a seeded one draws a number) at a moment that depends on
  // timing would change the rest of the run.
  bool other_waits = false;
  WaitingView(*this).ForEach([&](LogicalThread id, const EventView&) {
    other_waits = other_waits || id != holder;
  });
  if (scheduling() && other_waits && holder_.load(std::memory_order_acquire) == holder &&
      !policy_.OwnsNextStep(holder) &&
      (slot == nullptr || !slot->owes_event.load(std::memory_order_acquire)))
    moved = PassTurn(holder);
  turn_guard_.clear(std::memory_order_release);
  return moved;
}

std::vector<StuckThread> Scheduler::StuckThreads() const {
  std::vector<StuckThread> threads;
  LogicalThread highest = highest_slot_used_.load(std::memory_order_acquire);
  for (LogicalThread id = 0; id <= highest && id < options_.max_threads; ++id) {
    const ThreadSlot& slot = slots_[id];
    const ThreadActivity activity = slot.activity.load(std::memory_order_acquire);
    if (activity == ThreadActivity::kExited || activity == ThreadActivity::kUnattached) continue;
    StuckThread& thread = threads.emplace_back();
    thread.id = id;
    thread.name = policy_.ThreadName(id);
    thread.activity = activity;
    if (slot.waiting_at_event.load(std::memory_order_acquire)) {
      thread.at_event = true;
      thread.event = slot.pending;
      thread.target = policy_.WaitTargetOf(id, slot.pending);
    } else if (slot.in_call.load(std::memory_order_acquire)) {
      thread.in_call = true;
      thread.event = slot.call;
      thread.target = policy_.WaitTargetOf(id, slot.call);
    }
    if (thread.target.holder != kNoThread)
      thread.holder_name = policy_.ThreadName(thread.target.holder);
  }
  // Each thread's events among the last ones, and how many were at its latest site: a spin.
  const uint64_t count = recent_count_.load(std::memory_order_acquire);
  const uint64_t first = count - std::min(count, kRecentEvents);
  for (StuckThread& thread : threads) {
    for (uint64_t i = count; i > first; --i) {
      const RecentEvent& event = recent_[(i - 1) % kRecentEvents];
      if (event.thread != thread.id) continue;
      thread.latest = EventView{event.kind, event.pc, 0, 0};
      break;
    }
    if (thread.latest.kind == EventKind::kUnspecified) continue;
    for (uint64_t i = first; i < count; ++i) {
      const RecentEvent& event = recent_[i % kRecentEvents];
      if (event.thread != thread.id) continue;
      ++thread.recent_events;
      if (event.pc == thread.latest.pc) ++thread.recent_repeats;
    }
  }
  return threads;
}

std::string Scheduler::DescribeState() const {
  std::string text;
  LogicalThread highest = highest_slot_used_.load(std::memory_order_acquire);
  for (LogicalThread id = 0; id <= highest && id < options_.max_threads; ++id) {
    ThreadActivity activity = slots_[id].activity.load(std::memory_order_acquire);
    if (activity == ThreadActivity::kUnattached) continue;
    if (!text.empty()) text += ", ";
    text += policy_.ThreadName(id);
    text += " ";
    text += ThreadActivityName(activity);
    if (slots_[id].waiting_at_event.load(std::memory_order_acquire)) {
      const std::string wait = policy_.DescribeWait(id, slots_[id].pending);
      if (!wait.empty()) text += " (for " + wait + ")";
    }
  }
  if (const std::string next = policy_.DescribeNextStep(); !next.empty()) text += "; next: " + next;
  return text;
}

}  // namespace pecan::replay
