// Whatever pecan starts ends with it: SIGINT, SIGTERM and SIGHUP are forwarded to every running
// child, SIGKILL follows after a grace period, and pecan then ends by the same signal.
#pragma once

#include <errno.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "trace_format/error.h"

namespace pecan::cli {

// Where a child runs. kOwn: in a process group of its own, signalled as a group (the child and
// whatever it started). kPecans: in pecan's, so the terminal's Ctrl-C reaches it and it may read
// the terminal; signalled by pid, and a signal the terminal sent is left to it (it got it too).
enum class ChildGroup { kOwn, kPecans };

// How long a child has after the forwarded signal before SIGKILL: the runtime finishes a trace
// or a verdict well within it, and the whole run is gone within a second of the signal.
inline constexpr std::chrono::milliseconds kTerminationGrace{500};

// Children running at once: hunt and triage run at most 256 jobs (--jobs), each one child.
inline constexpr int kMaxSupervisedChildren = 512;

// How a supervised child ended (its wait status), and whether its time bound killed it.
struct SupervisedEnd {
  int status = 0;
  bool timed_out = false;
  double seconds = 0;
};

namespace child_supervision_detail {

// A slot's pid: 0 free, -1 taken by a child about to start, > 0 the running child.
struct Slot {
  std::atomic<pid_t> pid{0};
  std::atomic<bool> own_group{false};
};
inline Slot slots[kMaxSupervisedChildren];
inline std::atomic<int> requested_signal{0};  // the first termination signal pecan received

inline bool AnySlotTaken() {
  for (const Slot& slot : slots)
    if (slot.pid.load() != 0) return true;
  return false;
}

// Ends this process by `signal_number` with its default action, as if it had never been caught,
// so whoever started pecan sees what ended it. Async-signal-safe.
[[noreturn]] inline void DieBySignal(int signal_number) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);  // in a handler the signal is blocked: pending until unblocked below
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::_exit(128 + signal_number);
}

inline void OnTerminationSignal(int signal_number, siginfo_t* info, void*) {
  const int saved_errno = errno;
  bool shares_terminal = false;
  for (const Slot& slot : slots)
    if (slot.pid.load() != 0 && !slot.own_group.load()) shares_terminal = true;
  // The terminal signals its whole foreground process group: the program got this one too and
  // decides what it means (an interactive program may well go on).
  if (info != nullptr && info->si_code == SI_KERNEL && shares_terminal) {
    errno = saved_errno;
    return;
  }
  int none = 0;
  requested_signal.compare_exchange_strong(none, signal_number);
  bool busy = false;
  for (Slot& slot : slots) {
    const pid_t pid = slot.pid.load();
    if (pid == 0) continue;
    busy = true;
    if (pid > 0) ::kill(slot.own_group.load() ? -pid : pid, signal_number);
  }
  // Nothing runs or starts: nothing to wait for. Otherwise the threads waiting for the children
  // end pecan once every child is gone (EndIfTerminationRequested).
  if (!busy) DieBySignal(signal_number);
  errno = saved_errno;
}

}  // namespace child_supervision_detail

// Installs the SIGINT, SIGTERM and SIGHUP handlers; a signal pecan inherited as ignored (nohup,
// a background job) stays ignored. Called once, before any child starts.
inline void InstallTerminationHandlers() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0) continue;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
    struct sigaction handler {};
    handler.sa_sigaction = child_supervision_detail::OnTerminationSignal;
    handler.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&handler.sa_mask);
    for (int blocked : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&handler.sa_mask, blocked);
    ::sigaction(signal_number, &handler, nullptr);
  }
}

// The termination signal pecan received, 0 when none.
inline int TerminationSignal() {
  return child_supervision_detail::requested_signal.load();
}

// When pecan was asked to end: waits until no child runs or starts any more (their threads kill
// them within the grace period), then ends pecan by that signal. Otherwise returns at once.
inline void EndIfTerminationRequested() {
  const int signal_number = TerminationSignal();
  if (signal_number == 0) return;
  std::cout.flush();
  std::cerr.flush();
  while (child_supervision_detail::AnySlotTaken())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  child_supervision_detail::DieBySignal(signal_number);
}

// One child process from just before it starts until it has been reaped. Start it between the
// constructor and Started(), then Wait() for it.
class SupervisedChild {
 public:
  // Takes a slot, so a signal arriving while the child starts waits for it. When pecan is
  // already ending, starts nothing: ends pecan (EndIfTerminationRequested) instead.
  explicit SupervisedChild(ChildGroup group) : own_group_(group == ChildGroup::kOwn) {
    using namespace child_supervision_detail;
    for (int i = 0; i < kMaxSupervisedChildren && slot_ < 0; i++) {
      pid_t free = 0;
      if (slots[i].pid.compare_exchange_strong(free, -1)) slot_ = i;
    }
    if (slot_ < 0) throw PecanError("too many programs running at once");
    slots[slot_].own_group.store(own_group_);
    if (TerminationSignal() != 0) {
      Release();
      EndIfTerminationRequested();
    }
  }
  ~SupervisedChild() { Release(); }
  SupervisedChild(const SupervisedChild&) = delete;
  SupervisedChild& operator=(const SupervisedChild&) = delete;

  // The child runs: termination signals reach it from now on (one that came while it started
  // is sent now).
  void Started(pid_t pid) {
    using namespace child_supervision_detail;
    pid_ = pid;
    slots[slot_].pid.store(pid);
    if (const int signal_number = TerminationSignal()) Signal(signal_number);
  }

  // Waits until the child ends. When `bound_seconds` (> 0) have passed since `start` it is
  // killed: by SIGKILL, or with a `term_grace` first by SIGTERM (so it can finish what it
  // writes) and by SIGKILL only if it is still there after the grace. It is killed
  // kTerminationGrace after pecan was asked to end; then whatever is left of its own process
  // group is killed too. Throws PecanError when the child cannot be waited for.
  SupervisedEnd Wait(std::chrono::steady_clock::time_point start, double bound_seconds,
                     std::chrono::milliseconds term_grace = std::chrono::milliseconds(0)) {
    using Clock = std::chrono::steady_clock;
    SupervisedEnd end;
    auto pause = std::chrono::milliseconds(1);
    Clock::time_point kill_at{};
    Clock::time_point bound_kill_at{};  // after a SIGTERM at the bound
    bool killed = false;
    for (;;) {
      siginfo_t info{};
      // WNOWAIT: an ended child stays a zombie, so its pid and process group still name it.
      const int waited =
          ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
      if (waited == 0 && info.si_pid == pid_) break;
      if (waited < 0 && errno != EINTR)
        throw PecanError("cannot wait for process " + std::to_string(pid_) + ": " +
                         std::strerror(errno));
      const Clock::time_point now = Clock::now();
      if (bound_seconds > 0 && !end.timed_out &&
          now - start >= std::chrono::duration<double>(bound_seconds)) {
        end.timed_out = true;
        if (term_grace.count() > 0) {
          Signal(SIGTERM);
          bound_kill_at = now + term_grace;
        } else {
          Signal(SIGKILL);
        }
      }
      if (bound_kill_at != Clock::time_point{} && now >= bound_kill_at) {
        Signal(SIGKILL);
        bound_kill_at = Clock::time_point{};
      }
      if (TerminationSignal() != 0 && !killed) {
        if (kill_at == Clock::time_point{}) {
          kill_at = now + kTerminationGrace;
        } else if (now >= kill_at) {
          Signal(SIGKILL);
          killed = true;
        }
      }
      std::this_thread::sleep_for(pause);
      // Short children answer quickly; long ones are polled less often.
      if (pause < std::chrono::milliseconds(16)) pause *= 2;
    }
    if (own_group_ && TerminationSignal() != 0) ::kill(-pid_, SIGKILL);  // what it started
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    end.status = status;
    end.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    Release();
    return end;
  }

 private:
  void Signal(int signal_number) const { ::kill(own_group_ ? -pid_ : pid_, signal_number); }
  void Release() {
    if (slot_ >= 0) child_supervision_detail::slots[slot_].pid.store(0);
    slot_ = -1;
  }

  int slot_ = -1;
  pid_t pid_ = 0;
  bool own_group_;
};

}  // namespace pecan::cli
