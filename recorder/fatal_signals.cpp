// The fatal-signal handler. It runs on the alternate stack (stack overflows), asks the writer
// thread to finish the file, and re-raises the signal with its default action.
#include "recorder/fatal_signals.h"

#include <errno.h>
#include <signal.h>

#include "recorder/runtime.h"
#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,    SIGABRT, SIGTRAP,   SIGSYS,
                                 SIGTERM, SIGINT,  SIGQUIT, SIGHUP,    SIGPIPE, SIGALRM,   SIGUSR1,
                                 SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSTKFLT, SIGPWR};

bool IsHardwareFault(int signal, const siginfo_t* info) {
  bool fault_signal = signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE;
  return fault_signal && info != nullptr && info->si_code > 0;  // raised by the CPU, not kill()
}

void OnFatalSignal(int signal, siginfo_t* info, void*) {
  const int saved_errno = errno;
  if (!OnWriterThread()) ReplayOnFatalSignal(signal);  // the verdict notes the failure first
  if (RecordingThisProcess() && !OnWriterThread()) {
    tls_thread.gates = 0;  // the dying thread records nothing more
    ProgramExitInfo exit;
    exit.known = true;
    exit.exited = false;
    exit.signal = signal;
    FinishRecording(exit, kSignalWaitMs);
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal, &default_action, nullptr);
  // A hardware fault recurs when the instruction re-executes; anything else is sent again and
  // delivered (with the default action) as soon as this handler returns.
  if (!IsHardwareFault(signal, info)) raise(signal);
  errno = saved_errno;
}

}  // namespace

void InstallFatalSignalHandlers() {
  for (int signal : kFatalSignals) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0) continue;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler != SIG_DFL) continue;
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction != nullptr) continue;
    struct sigaction handler {};
    handler.sa_sigaction = OnFatalSignal;
    handler.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&handler.sa_mask);
    sigaction(signal, &handler, nullptr);
  }
}

}  // namespace pecan::rt
