// Process-level interposers: fork (PECAN_FORK policy), _exit/_Exit and abort (finish the trace
// first), and exec (the new image replaces us: the trace is finished before it starts).
#include <signal.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/runtime.h"
#include "recorder/runtime_messages.h"
#include "recorder/thread_state.h"

using namespace pecan::rt;

namespace {

// exec replaces the process image: our destructors will never run, so the trace is completed
// (without an exit status) now. If exec fails, the rest of the run goes unrecorded.
void FinishBeforeExec() {
  if (!RecordingThisProcess()) return;
  FinishRecording(pecan::ProgramExitInfo{}, kExitWaitMs);
}

void ReportFailedExec() {
  if (RecordingThisProcess()) {
    RuntimeMessage(
        "exec failed after the trace was completed; the rest of the run is not recorded");
  }
}

// Collects the variadic arguments of execl/execlp/execle into an argv array on the stack.
#define PECAN_COLLECT_VARARGS(first, argv_name)            \
  size_t count = 1;                                        \
  {                                                        \
    va_list probe;                                         \
    va_copy(probe, args);                                  \
    while (va_arg(probe, const char*) != nullptr) ++count; \
    va_end(probe);                                         \
  }                                                        \
  char* argv_name[count + 1];                              \
  argv_name[0] = const_cast<char*>(first);                 \
  for (size_t i = 1; i <= count; ++i) argv_name[i] = va_arg(args, char*)

}  // namespace

PECAN_EXPORT pid_t fork() {
  if (!RecordingThisProcess()) return REAL(fork)();
  pid_t pid;
  {
    RuntimeScope scope;  // atfork handlers run inside fork() while the runtime's locks are held
    PrepareFork();
    pid = REAL(fork)();
    if (pid != 0) AfterForkInParent();
  }
  if (pid == 0) AfterForkInChild();
  return pid;
}

PECAN_EXPORT void _exit(int status) {
  ReplayOnProgramExit(status & 0xff);
  FinishRecordingAtExit(status);
  if (REAL(_exit) != nullptr) REAL(_exit)(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

PECAN_EXPORT void _Exit(int status) {
  ReplayOnProgramExit(status & 0xff);
  FinishRecordingAtExit(status);
  if (REAL(_Exit) != nullptr) REAL(_Exit)(status);
  syscall(SYS_exit_group, status);
  __builtin_unreachable();
}

// abort() called from the program (assert() calls glibc's internal abort: the SIGABRT handler
// catches that one).
PECAN_EXPORT void abort() {
  if (!OnWriterThread()) ReplayOnFatalSignal(SIGABRT);
  if (RecordingThisProcess() && !OnWriterThread()) {
    tls_thread.gates = 0;
    pecan::ProgramExitInfo exit;
    exit.known = true;
    exit.exited = false;
    exit.signal = SIGABRT;
    FinishRecording(exit, kSignalWaitMs);
  }
  REAL(abort)();
  __builtin_unreachable();
}

PECAN_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  FinishBeforeExec();
  int result = REAL(execve)(path, argv, envp);
  ReportFailedExec();
  return result;
}

PECAN_EXPORT int execv(const char* path, char* const argv[]) {
  FinishBeforeExec();
  int result = REAL(execv)(path, argv);
  ReportFailedExec();
  return result;
}

PECAN_EXPORT int execvp(const char* file, char* const argv[]) {
  FinishBeforeExec();
  int result = REAL(execvp)(file, argv);
  ReportFailedExec();
  return result;
}

PECAN_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  FinishBeforeExec();
  int result = REAL(execvpe)(file, argv, envp);
  ReportFailedExec();
  return result;
}

PECAN_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  FinishBeforeExec();
  int result = REAL(fexecve)(fd, argv, envp);
  ReportFailedExec();
  return result;
}

PECAN_EXPORT int execl(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  PECAN_COLLECT_VARARGS(arg, argv);
  va_end(args);
  return execv(path, argv);
}

PECAN_EXPORT int execlp(const char* file, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  PECAN_COLLECT_VARARGS(arg, argv);
  va_end(args);
  return execvp(file, argv);
}

PECAN_EXPORT int execle(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  PECAN_COLLECT_VARARGS(arg, argv);
  char* const* envp = va_arg(args, char* const*);
  va_end(args);
  return execve(path, argv, envp);
}
