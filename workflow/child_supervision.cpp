#include "workflow/child_supervision.h"

namespace pecan::workflow {

namespace {

// A slot's pid: 0 free, -1 taken by a child about to start, > 0 the running child.
struct Slot {
  std::atomic<pid_t> pid{0};
  std::atomic<bool> own_group{false};
};
Slot slots[kMaxSupervisedChildren];
std::atomic<int> requested_signal{0};  // the first termination signal pecan received

bool AnySlotTaken() {
  for (const Slot& slot : slots)
    if (slot.pid.load() != 0) return true;
  return false;
}

// Ends this process by `signal_number` with its default action, as if it had never been caught,
// so whoever started pecan sees what ended it. Async-signal-safe.
[[noreturn]] void DieBySignal(int signal_number) {
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

void OnTerminationSignal(int signal_number, siginfo_t* info, void*) {
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

}  // namespace

void InstallTerminationHandlers() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0) continue;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
    struct sigaction handler {};
    handler.sa_sigaction = OnTerminationSignal;
    handler.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&handler.sa_mask);
    for (int blocked : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&handler.sa_mask, blocked);
    ::sigaction(signal_number, &handler, nullptr);
  }
}

int TerminationSignal() {
  return requested_signal.load();
}

void EndIfTerminationRequested() {
  const int signal_number = TerminationSignal();
  if (signal_number == 0) return;
  std::cout.flush();
  std::cerr.flush();
  while (AnySlotTaken()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  DieBySignal(signal_number);
}

SupervisedChild::SupervisedChild(ChildGroup group) : own_group_(group == ChildGroup::kOwn) {
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

void SupervisedChild::Started(pid_t pid) {
  pid_ = pid;
  slots[slot_].pid.store(pid);
  if (const int signal_number = TerminationSignal()) Signal(signal_number);
}

SupervisedEnd SupervisedChild::Wait(std::chrono::steady_clock::time_point start,
                                    double bound_seconds, std::chrono::milliseconds term_grace) {
  using Clock = std::chrono::steady_clock;
  SupervisedEnd end;
  auto pause = std::chrono::milliseconds(1);
  Clock::time_point kill_at{};
  Clock::time_point bound_kill_at{};  // after a SIGTERM at the bound
  bool killed = false;
  for (;;) {
    siginfo_t info{};
    // WNOWAIT: an ended child stays a zombie, so its pid and process group still name it.
    const int waited = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
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

void SupervisedChild::Release() {
  if (slot_ >= 0) slots[slot_].pid.store(0);
  slot_ = -1;
}

}  // namespace pecan::workflow
