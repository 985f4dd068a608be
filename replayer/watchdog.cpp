// The watchdog's loop: progress tracking, deadlock and time-bound verdicts, idle hand-over.
#include "replayer/watchdog.h"

#include <string>

#include "replayer/os_thread_state.h"

namespace pecan::replay {
namespace {

std::string Seconds(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g s", static_cast<double>(duration.count()) / 1000.0);
  return text;
}

}  // namespace

void Watchdog::RequestExit() {
  exit_requested_.store(true, std::memory_order_release);
  exit_signal_.Post();
}

void Watchdog::Run() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Scheduler::Snapshot snap = scheduler_.Inspect();
  uint64_t last_progress = snap.progress;
  Clock::time_point last_change = start;

  while (!exit_requested_.load(std::memory_order_acquire)) {
    uint32_t ticket = exit_signal_.Ticket();
    if (exit_requested_.load(std::memory_order_acquire)) break;
    exit_signal_.WaitUntilPosted(ticket, options_.tick);

    snap = scheduler_.Inspect();
    if (snap.mode != SchedulerMode::kScheduling) return;
    const Clock::time_point now = Clock::now();
    if (options_.time_bound.count() > 0 && now - start > options_.time_bound) {
      scheduler_.Stop({StopCause::kTimeBound,
                       "the schedule did not finish within the time bound (" +
                           Seconds(options_.time_bound) + "): " + scheduler_.DescribeState(),
                       0});
      return;
    }
    if (snap.progress != last_progress) {
      last_progress = snap.progress;
      last_change = now;
      continue;
    }
    const auto quiet = now - last_change;
    if (snap.every_live_thread_waits && quiet >= options_.deadlock_confirm) {
      scheduler_.Stop({StopCause::kDeadlock,
                       "deadlock: every thread is blocked (" + scheduler_.DescribeState() + ")",
                       0});
      return;
    }
    if (!snap.holder_owns_next_step && snap.holder_activity == ThreadActivity::kRunning &&
        quiet >= options_.idle_grace) {
      // A holder that computes or does disk I/O keeps the turn for busy_grace; one that waits in
      // a system call (for another thread, say) only for idle_grace. A timed sleep ends by
      // itself: under a policy that chooses, the sleeper keeps the turn too, or whether the turn
      // moved would depend on how long the sleep was against how fast the others came.
      const OsThreadState state = ReadOsThreadState(snap.holder_os_tid);
      const bool busy = state == OsThreadState::kRunnable || state == OsThreadState::kInIo ||
                        (state == OsThreadState::kTimedSleep && snap.policy_chooses);
      if (!busy || quiet >= options_.busy_grace) {
        if (scheduler_.HandOverFromIdleHolder(snap.holder))
          idle_handovers_.fetch_add(1, std::memory_order_relaxed);
      }
    }
  }
}

}  // namespace pecan::replay
