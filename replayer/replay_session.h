// One process's replay of one clip: the schedule, the clip-following policy and the seeded tail
// that continues it, the scheduler and its watchdog, the log of what ran, and the verdict file
// they feed. The runtime creates it at start-up in
// PECAN_MODE=replay and forwards events and the process's end to it (replay_hooks.h).
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "proto/clip.pb.h"
#include "proto/report.pb.h"
#include "replayer/clip_follow_policy.h"
#include "replayer/continued_clip_policy.h"
#include "replayer/drfinder.h"
#include "replayer/execution_log.h"
#include "replayer/race_fuzzer.h"
#include "replayer/replay_options.h"
#include "replayer/replay_schedule.h"
#include "replayer/scheduler.h"
#include "replayer/site_locator.h"
#include "replayer/verdict_file.h"
#include "replayer/watchdog.h"

namespace pecan::replay {

// The exit status of a process whose replay was stopped (infeasible or error): the verdict file
// says why. Chosen to be unusual so a parent without the file can still tell.
inline constexpr int kReplayStoppedExitStatus = 86;

using ThreadCreateFunction = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

class ReplaySession final : public ReplayObserver {
 public:
  struct Environment {
    std::unique_ptr<SiteLocator> locator;
    ThreadCreateFunction create_thread = nullptr;  // the real pthread_create (not interposed)
    bool exit_on_stop = true;  // end the process when scheduling stops early (tests: false)
  };

  // Checks the clip (throws PecanError naming the problem).
  ReplaySession(ReplayOptions options, proto::Clip clip, Environment environment);
  ReplaySession(const ReplaySession&) = delete;
  ReplaySession& operator=(const ReplaySession&) = delete;

  // Writes the first verdict ("running") and starts the watchdog thread.
  void Start();

  Scheduler& scheduler() { return scheduler_; }
  const proto::RecorderSettings& recorder_settings() const { return clip_.settings(); }
  const ReplaySchedule& schedule() const { return schedule_; }
  bool hatched() const { return hatched_.load(std::memory_order_acquire); }
  bool confirming_stuck() const { return stuck_pending_.load(std::memory_order_acquire); }
  proto::Verdict CurrentVerdict();

  // The process is ending: by exit(status), by a fatal signal, or by a failed assert().
  void OnProgramExit(int status);
  void OnFatalSignal(int signal);
  void OnAssertionFailure(const char* assertion, const char* file, unsigned line,
                          const char* function);

  // A real race the racefuzzer strategy brought about (called by the turn holder).
  void OnRealRace(const RealRace& race);
  // The verdict keeps this many real races; the rest are only counted.
  static constexpr size_t kMaxRealRaces = 64;

  void OnAnomalyFormed() override;
  void OnScheduleFinished() override;
  void OnStopped(const StopReport& report) override;

 private:
  static void* WatchdogMain(void* session);
  // The continuation's settings: the options', plus RaceFuzzer's racing PCs (the clip's finding
  // sites where they are now) and its race sink.
  ContinuationSettings ContinuationFor();
  // DrFinder's relations from options_.may_trigger_path, located through the clip's sites.
  MayTriggerMap ReadMayTrigger();
  void UpdateVerdict(const std::function<void(proto::Verdict&)>& change);
  void Message(const std::string& text) const;
  void StopAndEnd(StopCause cause, const std::string& reason);
  void OnDiverged(const std::string& description);
  // The program failed (`failure`: "crashed", "assertion", "exit", "deadlock", "timeout"; `text`
  // says how): after the clip was done or its anomaly formed, the verdict stands with the
  // failure added; before, the failure is EXPOSED. Writes the failure clip.
  void Fail(const std::string& failure, const std::string& text,
            const std::function<void(proto::Verdict&)>& details);
  // Whether the clip's goal was reached: its anomaly formed, or all its steps ran.
  bool Reached() const { return hatched() || clip_done_.load(std::memory_order_acquire); }
  // Writes the clip of what this run executed to options_.executed_clip_path (once).
  void WriteExecutedClip(const std::string& why);
  // After the watchdog stopped a stuck run (its threads now run freely): claims the deadlock or
  // hang only if the program is still running after kStuckConfirmation.
  void ConfirmStuck();
  // A deadlock clip: its verdict is DEADLOCKED when, after the clip, the threads of the cycle
  // block at their requests (CycleBlocked), INFEASIBLE when the program ends normally instead.
  bool IsDeadlockClip() const { return !schedule_.deadlock_requests.empty(); }
  // Whether every request of the deadlock clip's cycle is among `threads`, blocked in an
  // acquisition at the request's site.
  bool CycleBlocked(const std::vector<StuckThread>& threads);
  // The failing thread (the caller) and its last event's site, into the verdict.
  void NoteFailingThread(proto::Verdict& v);
  static constexpr std::chrono::milliseconds kStuckConfirmation{2000};

  ReplayOptions options_;
  proto::Clip clip_;
  bool race_reversed_ = false;  // set while schedule_ is built
  ReplaySchedule schedule_;
  std::unique_ptr<SiteLocator> locator_;
  bool exit_on_stop_;
  ThreadCreateFunction create_thread_;
  ClipFollowPolicy clip_policy_;
  ContinuedClipPolicy policy_;
  ExecutionLog execution_log_;
  Scheduler scheduler_;
  Watchdog watchdog_;
  VerdictFile verdict_file_;
  proto::Verdict verdict_;
  std::atomic_flag verdict_lock_ = ATOMIC_FLAG_INIT;  // no pthread mutex: those are interposed
  std::atomic<bool> hatched_{false};
  std::atomic<bool> clip_done_{false};
  std::atomic<bool> stuck_pending_{false};  // a deadlock or hang waiting for ConfirmStuck
  std::string stuck_failure_;               // "deadlock" or "timeout"
  std::string stuck_text_;
  std::vector<StuckThread> stuck_threads_;  // as they were when the run was stopped
  bool cycle_blocked_ = false;              // CycleBlocked(stuck_threads_), set with them
  std::atomic<uint64_t> races_total_{0};
  std::atomic_flag executed_clip_written_ = ATOMIC_FLAG_INIT;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pecan::replay
