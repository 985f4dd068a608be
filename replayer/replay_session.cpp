// ReplaySession: wiring the clip to the scheduler, and keeping the verdict file current.
#include "replayer/replay_session.h"

#include <sched.h>

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <algorithm>
#include <fstream>
#include <unordered_map>

#include "replayer/anomaly_breakpoint.h"
#include "replayer/executed_clip.h"
#include "replayer/stuck_threads.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/signal_name.h"

namespace pecan::replay {
namespace {

Watchdog::Options WatchdogOptionsFor(const ReplayOptions& options) {
  Watchdog::Options watchdog;
  watchdog.time_bound = options.time_bound;
  return watchdog;
}

// A thread whose turn comes next usually gets it within a microsecond or two: polling that
// long before sleeping on the semaphore makes a switch cost about 0.2 us instead of a futex
// wake-up (about 25 us), and costs little when the turn takes longer.
Scheduler::Options SchedulerOptions() {
  Scheduler::Options options;
  options.spin_before_sleep = 200;
  return options;
}

ReplaySchedule ScheduleFor(const proto::Clip& clip, const ReplayOptions& options,
                           bool& race_reversed) {
  ReplaySchedule schedule = ReplaySchedule::FromClip(clip);
  race_reversed = options.reverse_race && schedule.ReverseRaceOrder();
  return schedule;
}

}  // namespace

ReplaySession::ReplaySession(ReplayOptions options, proto::Clip clip, Environment environment)
    : options_(std::move(options)),
      clip_(std::move(clip)),
      schedule_(ScheduleFor(clip_, options_, race_reversed_)),
      locator_(std::move(environment.locator)),
      exit_on_stop_(environment.exit_on_stop),
      create_thread_(environment.create_thread),
      clip_policy_(schedule_, *locator_),
      policy_(clip_policy_, ContinuationFor()),
      scheduler_(policy_, *this, SchedulerOptions()),
      watchdog_(scheduler_, WatchdogOptionsFor(options_)),
      verdict_file_(options_.verdict_path),
      start_(std::chrono::steady_clock::now()) {
  if (schedule_.steps.empty()) throw PecanError("the clip has no steps");
  verdict_.set_finding_id(schedule_.finding_id);
  verdict_.set_steps_total(schedule_.steps.size());
  verdict_.set_reason("replay started");
  if (!options_.executed_clip_path.empty()) scheduler_.LogExecutionTo(&execution_log_);
  policy_.OnDivergence([this](const std::string& description) { OnDiverged(description); });
}

ContinuationSettings ReplaySession::ContinuationFor() {
  ContinuationSettings settings = options_.continuation;
  settings.seed = options_.seed;
  if (settings.strategy == ContinuationSettings::Strategy::kRaceFuzzer) {
    std::vector<uint64_t> runtime_pc;
    locator_->Locate(schedule_, runtime_pc);
    for (uint32_t site : schedule_.finding_sites) {
      if (site < runtime_pc.size() && runtime_pc[site] != 0 &&
          std::find(settings.racing_pcs.begin(), settings.racing_pcs.end(), runtime_pc[site]) ==
              settings.racing_pcs.end())
        settings.racing_pcs.push_back(runtime_pc[site]);
    }
    if (settings.racing_pcs.empty())
      Message(
          "racefuzzer: the clip names no racing statement found in this process; the run "
          "is random");
    settings.on_race = [this](const RealRace& race) { OnRealRace(race); };
  }
  if (settings.strategy == ContinuationSettings::Strategy::kDrFinder)
    settings.may_trigger = std::make_shared<const MayTriggerMap>(ReadMayTrigger());
  return settings;
}

MayTriggerMap ReplaySession::ReadMayTrigger() {
  MayTriggerMap map;
  std::ifstream in(options_.may_trigger_path);
  if (!in) {
    Message("drfinder: cannot read the may-trigger relations (PECAN_MAY_TRIGGER='" +
            options_.may_trigger_path + "'); the run is random");
    return map;
  }
  std::vector<uint64_t> runtime_pc;
  locator_->Locate(schedule_, runtime_pc);
  std::unordered_map<uint32_t, uint64_t> pc_of_site;  // clip site id -> where it is now
  for (size_t i = 0; i < schedule_.sites.size() && i < runtime_pc.size(); ++i)
    if (runtime_pc[i] != 0) pc_of_site[schedule_.sites[i].clip_id] = runtime_pc[i];
  std::string kind;
  while (in >> kind) {
    uint64_t a = 0, b = 0;
    if (kind == "D") {
      in >> a;
      map.depth = static_cast<uint32_t>(a);
      continue;
    }
    if (!(in >> a >> b)) break;
    if (kind == "R") {
      map.relations.emplace(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
      continue;
    }
    auto pc = pc_of_site.find(static_cast<uint32_t>(a));
    if (pc == pc_of_site.end()) continue;
    if (kind == "F") map.function_at_entry[pc->second] = static_cast<uint32_t>(b);
    if (kind == "G") map.class_of_global[pc->second] = static_cast<uint32_t>(b);
    if (kind == "A") map.class_of_alloc[pc->second] = static_cast<uint32_t>(b);
  }
  return map;
}

void ReplaySession::OnRealRace(const RealRace& race) {
  const uint64_t count = races_total_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (count > kMaxRealRaces) return;
  auto fill = [&](LogicalThread thread, const EventView& event, proto::RaceAccess& access) {
    access.set_thread(policy_.ThreadName(thread));
    access.set_kind(static_cast<uint32_t>(event.kind));
    SetPlace(event.pc, *locator_, *access.mutable_site());
    SetPlace(event.addr, *locator_, *access.mutable_address());
    access.set_size(event.size);
  };
  UpdateVerdict([&](proto::Verdict& v) {
    proto::RealRace* real = v.add_races();
    fill(race.first, race.first_event, *real->mutable_first());
    fill(race.second, race.second_event, *real->mutable_second());
  });
}

void ReplaySession::Start() {
  UpdateVerdict([](proto::Verdict&) {});
  if (create_thread_ == nullptr) return;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  if (create_thread_(&thread, &attributes, &ReplaySession::WatchdogMain, this) != 0)
    Message("cannot start the watchdog thread: replay runs without deadlock detection");
  pthread_attr_destroy(&attributes);
}

void* ReplaySession::WatchdogMain(void* session) {
  auto* self = static_cast<ReplaySession*>(session);
  self->watchdog_.Run();
  self->ConfirmStuck();
  return nullptr;
}

void ReplaySession::ConfirmStuck() {
  if (!stuck_pending_.load(std::memory_order_acquire)) return;
  // The threads now run freely. A program that really deadlocked or hangs stays stuck; one
  // that only looked stuck under the scheduler ends (OnProgramExit clears the claim).
  const auto deadline = std::chrono::steady_clock::now() + kStuckConfirmation;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!stuck_pending_.load(std::memory_order_acquire)) return;
    struct timespec pause {
      0, 10'000'000
    };
    nanosleep(&pause, nullptr);
  }
  if (!stuck_pending_.exchange(false, std::memory_order_acq_rel)) return;
  Fail(stuck_failure_, stuck_text_ + " (still stuck when let run freely)",
       [&](proto::Verdict& v) { AddStuckThreads(stuck_threads_, *locator_, v); });
  if (exit_on_stop_) syscall(SYS_exit_group, kReplayStoppedExitStatus);
}

proto::Verdict ReplaySession::CurrentVerdict() {
  while (verdict_lock_.test_and_set(std::memory_order_acquire)) sched_yield();
  proto::Verdict copy = verdict_;
  verdict_lock_.clear(std::memory_order_release);
  return copy;
}

void ReplaySession::UpdateVerdict(const std::function<void(proto::Verdict&)>& change) {
  while (verdict_lock_.test_and_set(std::memory_order_acquire)) sched_yield();
  change(verdict_);
  verdict_.set_events_scheduled(policy_.StepsExecuted());
  verdict_.set_idle_handovers(watchdog_.idle_handovers());
  verdict_.set_unsettled_choices(scheduler_.unsettled_choices());
  verdict_.set_races_total(races_total_.load(std::memory_order_relaxed));
  verdict_.set_seconds(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  if (!verdict_file_.path().empty() && !verdict_file_.Write(verdict_))
    Message("cannot write the verdict to " + verdict_file_.path());
  verdict_lock_.clear(std::memory_order_release);
}

void ReplaySession::Message(const std::string& text) const {
  if (options_.quiet) return;
  std::string line = "pecan-rt: replay: " + text + "\n";
  ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

void ReplaySession::OnAnomalyFormed() {
  std::string events;
  for (size_t i = 0; i < schedule_.anomaly.size(); ++i) {
    const ScheduleStep& step = schedule_.steps[schedule_.anomaly[i].step];
    if (i > 0) events += ", ";
    events += schedule_.ThreadName(step.thread) + " " + std::string(EventKindName(step.kind)) +
              " at " + schedule_.DescribeSite(step.site);
  }
  const uint64_t executed = clip_policy_.StepsExecuted();
  hatched_.store(true, std::memory_order_release);
  UpdateVerdict([&](proto::Verdict& v) {
    v.set_outcome(proto::Verdict::HATCHED);
    v.set_steps_executed(executed);
    v.set_reason(
        "the anomaly formed at step " + std::to_string(executed) + " of " +
        std::to_string(schedule_.steps.size()) + ": " + events +
        (clip_policy_.formed_with_last_pending()
             ? " (the last of them was about to run on the same location, its thread stopped "
               "at it)"
             : "") +
        (race_reversed_ ? " (the race's accesses in the order the recording did not show)" : ""));
  });
  pecan_anomaly_formed();
}

void ReplaySession::OnScheduleFinished() {
  const uint64_t executed = clip_policy_.StepsExecuted();
  clip_done_.store(true, std::memory_order_release);
  UpdateVerdict([&](proto::Verdict& v) {
    v.set_steps_executed(executed);
    if (IsDeadlockClip()) {
      v.set_reason("followed all " + std::to_string(executed) +
                   " steps: each thread of the cycle holds its lock and requests the next one");
      return;
    }
    // A clip without anomaly events asks only to follow the schedule; doing so is the result.
    if (schedule_.anomaly.empty()) {
      v.set_outcome(proto::Verdict::HATCHED);
      v.set_reason("followed all " + std::to_string(executed) +
                   " steps (the clip names no anomaly events)");
    }
  });
}

void ReplaySession::OnDiverged(const std::string& description) {
  UpdateVerdict([&](proto::Verdict& v) {
    v.set_divergence(description);
    v.set_steps_executed(clip_policy_.StepsExecuted());
  });
  Message(description + "; the run goes on under the seeded schedule");
}

void ReplaySession::OnStopped(const StopReport& report) {
  if (policy_.in_tail()) {
    // Stuck after the clip (or after leaving it): the program's own deadlock or hang, unless it
    // was the scheduler's doing (its model of what a thread waits for is not the program's whole
    // truth): the threads are let run freely and the failure is claimed only if the program
    // stays stuck (ConfirmStuck). A run that left the clip and merely did not end in time is
    // refuted.
    if (report.cause == StopCause::kDeadlock ||
        (report.cause == StopCause::kTimeBound && Reached())) {
      const std::string prefix = "deadlock: ";
      stuck_failure_ = report.cause == StopCause::kDeadlock ? "deadlock" : "timeout";
      stuck_text_ = report.cause == StopCause::kDeadlock
                        ? (report.reason.rfind(prefix, 0) == 0 ? report.reason.substr(prefix.size())
                                                               : report.reason)
                        : "the run did not end within the time bound: " + report.reason;
      stuck_threads_ = scheduler_.StuckThreads();
      cycle_blocked_ = IsDeadlockClip() && CycleBlocked(stuck_threads_);
      stuck_pending_.store(true, std::memory_order_release);
      return;
    }
    UpdateVerdict([&](proto::Verdict& v) {
      v.set_outcome(report.cause == StopCause::kInternal ? proto::Verdict::ERROR
                                                         : proto::Verdict::INFEASIBLE);
      v.set_reason("divergence: " + v.divergence() + "; then " +
                   std::string(StopCauseName(report.cause)) + ": " + report.reason);
    });
    Message("stopped (" + std::string(StopCauseName(report.cause)) + "): " + report.reason);
    if (exit_on_stop_) syscall(SYS_exit_group, kReplayStoppedExitStatus);
    return;
  }
  if (hatched()) {
    // The anomaly was already proven; what follows is the program running on freely.
    return;
  }
  UpdateVerdict([&](proto::Verdict& v) {
    v.set_outcome(report.cause == StopCause::kInternal ? proto::Verdict::ERROR
                                                       : proto::Verdict::INFEASIBLE);
    v.set_steps_executed(report.steps_executed);
    v.set_reason(std::string(StopCauseName(report.cause)) + ": " + report.reason);
  });
  Message("stopped (" + std::string(StopCauseName(report.cause)) + "): " + report.reason);
  if (exit_on_stop_) syscall(SYS_exit_group, kReplayStoppedExitStatus);
}

void ReplaySession::StopAndEnd(StopCause cause, const std::string& reason) {
  scheduler_.Stop({cause, reason, 0});
}

void ReplaySession::Fail(const std::string& failure, const std::string& text,
                         const std::function<void(proto::Verdict&)>& details) {
  const bool reached = Reached();
  const uint64_t clip_steps = clip_policy_.StepsExecuted();
  UpdateVerdict([&](proto::Verdict& v) {
    // A crash that follows a failed assertion is the assertion's abort: keep the assertion.
    const bool after_assertion = v.failure() == "assertion";
    details(v);
    if (after_assertion) return;
    v.set_failure(failure);
    v.set_failure_message(text);
    if (reached && IsDeadlockClip() && !hatched()) {
      const std::string followed =
          "followed all " + std::to_string(clip_steps) + " steps of the clip";
      if (cycle_blocked_ && (failure == "deadlock" || failure == "timeout")) {
        v.set_outcome(proto::Verdict::DEADLOCKED);
        v.set_failure("deadlock");
        v.set_reason("the predicted deadlock formed: " + followed + ", then " + text);
      } else {
        // A real failure of a real schedule, but not the predicted cycle.
        v.set_outcome(proto::Verdict::EXPOSED);
        v.set_reason(followed + ", then failed (not the predicted deadlock): " + text);
      }
      return;
    }
    if (reached) {
      if (failure == "assertion" || failure == "deadlock" || failure == "timeout")
        v.set_reason(v.reason() + "; then " + text);
      return;
    }
    v.set_outcome(proto::Verdict::EXPOSED);
    v.set_steps_executed(clip_steps);
    v.set_reason(!v.divergence().empty()
                     ? v.divergence() + ", then failed: " + text
                     : "failed at step " + std::to_string(clip_steps) + " of " +
                           std::to_string(schedule_.steps.size()) + " of the clip: " + text);
  });
  WriteExecutedClip(text);
}

void ReplaySession::WriteExecutedClip(const std::string& why) {
  if (options_.executed_clip_path.empty() || executed_clip_written_.test_and_set()) return;
  if (execution_log_.overflowed()) {
    Message("the run executed more steps than a clip of it can hold; no clip written");
    return;
  }
  try {
    WriteClipFile(options_.executed_clip_path,
                  BuildExecutedClip(clip_, schedule_, execution_log_, *locator_, why));
    UpdateVerdict([&](proto::Verdict& v) { v.set_failure_clip(options_.executed_clip_path); });
  } catch (const std::exception& error) {
    Message(std::string("cannot write the clip of this run: ") + error.what());
  }
}

void ReplaySession::OnProgramExit(int status) {
  if (stuck_pending_.exchange(false, std::memory_order_acq_rel))
    Message("the run looked stuck under the scheduler (" + stuck_text_ +
            ") but ended when its threads ran freely: not counted as a failure");
  UpdateVerdict([](proto::Verdict&) {});  // how far the run went (events_scheduled, seconds)
  if (status != options_.expected_exit_status) {
    Fail("exit", "the program exited with status " + std::to_string(status),
         [&](proto::Verdict& v) { v.set_exit_status(status); });
    return;
  }
  if (IsDeadlockClip() && clip_done_.load(std::memory_order_acquire)) {
    UpdateVerdict([&](proto::Verdict& v) {
      v.set_outcome(proto::Verdict::INFEASIBLE);
      v.set_reason("followed all " + std::to_string(clip_policy_.StepsExecuted()) +
                   " steps of the clip, but the threads of the cycle did not block: the program "
                   "ended normally (exit status " +
                   std::to_string(status) + ")");
    });
  } else if (policy_.diverged() && !Reached()) {
    UpdateVerdict([&](proto::Verdict& v) {
      v.set_outcome(proto::Verdict::INFEASIBLE);
      v.set_reason("divergence: " + v.divergence() +
                   "; then the program ended normally (exit status " + std::to_string(status) +
                   ")");
    });
  } else if (!Reached() && scheduler_.scheduling()) {
    StopAndEnd(StopCause::kProgramExited,
               "the program exited with status " + std::to_string(status) +
                   " before the schedule ended (" + policy_.DescribeNextStep() + ")");
  }
  if (options_.executed_clip_always) WriteExecutedClip("");
}

void ReplaySession::OnFatalSignal(int signal) {
  Fail("crashed", "the program died of " + SignalName(signal), [&](proto::Verdict& v) {
    v.set_signal(signal);
    NoteFailingThread(v);
  });
}

void ReplaySession::OnAssertionFailure(const char* assertion, const char* file, unsigned line,
                                       const char* function) {
  std::string text = std::string(file ? file : "?") + ":" + std::to_string(line) + ": " +
                     (function ? function : "?") + ": assertion `" + (assertion ? assertion : "?") +
                     "' failed";
  Fail("assertion", text, [&](proto::Verdict& v) { NoteFailingThread(v); });
}

bool ReplaySession::CycleBlocked(const std::vector<StuckThread>& threads) {
  std::vector<uint64_t> runtime_pc;
  locator_->Locate(schedule_, runtime_pc);
  for (const DeadlockRequest& request : schedule_.deadlock_requests) {
    const uint64_t pc = request.site < runtime_pc.size() ? runtime_pc[request.site] : 0;
    const bool blocked = std::any_of(threads.begin(), threads.end(), [&](const StuckThread& t) {
      return t.id == request.thread && IsAcquire(t.event.kind) && pc != 0 && t.event.pc == pc;
    });
    if (!blocked) return false;
  }
  return true;
}

void ReplaySession::NoteFailingThread(proto::Verdict& v) {
  const LogicalThread self = scheduler_.CallerId();
  if (self == kNoThread) return;
  v.set_failure_thread(policy_.ThreadName(self));
  // Its last event under the turn: the failure lies between it and the thread's next one.
  constexpr uint64_t kLookBack = uint64_t{1} << 20;
  const uint64_t size = execution_log_.size();
  for (uint64_t i = size; i > 0 && size - i < kLookBack; --i) {
    const ExecutionLog::Entry& entry = execution_log_.at(i - 1);
    if (entry.thread != self) continue;
    SetPlace(entry.pc, *locator_, *v.mutable_failure_site());
    return;
  }
}

}  // namespace pecan::replay
