// Runtime start-up, the end of a recording (exit, _exit, fatal signals, exec) and fork.
// Every object here is created once and never destroyed: threads may still run while the
// process exits, and static destructors must not pull state out from under them.
#include "recorder/runtime.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <exception>

#include "recorder/atomic_stripes.h"
#include "recorder/fatal_signals.h"
#include "recorder/global_stamp.h"
#include "recorder/load_order.h"
#include "recorder/object_sequences.h"
#include "recorder/plt_redirect.h"
#include "recorder/real_functions.h"
#include "recorder/runtime_messages.h"
#include "recorder/section_hooks.h"
#include "recorder/thread_handle_map.h"
#include "recorder/thread_lifecycle.h"
#include "recorder/thread_ring.h"
#include "recorder/thread_state.h"
#include "recorder/trace_collector.h"
#include "trace_format/version.h"

namespace pecan::rt {
namespace {

enum InitState : int { kNotStarted = 0, kStarting = 1, kReady = 2 };
std::atomic<int> init_state{kNotStarted};
std::atomic<pid_t> initializing_tid{0};

const RuntimeConfig default_config;
RuntimeConfig* config = nullptr;
std::atomic<TraceCollector*> collector{nullptr};
std::atomic<pid_t> recording_pid{0};

std::atomic<bool> initial_thread_exited{false};
std::atomic<bool> exit_status_known{false};
std::atomic<int> exit_status{0};

std::string ReadCommandLineFile(std::vector<std::string>& args) {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string bytes;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) bytes.append(buffer, size_t(n));
  close(fd);
  std::string program;
  size_t start = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\0') continue;
    std::string arg = bytes.substr(start, i - start);
    if (start == 0) {
      program = arg;
    } else {
      args.push_back(arg);
    }
    start = i + 1;
  }
  return program;
}

TraceMeta BuildTraceMeta(const RuntimeConfig& settings) {
  TraceMeta meta;
  meta.format_major = kTraceFormatMajor;
  meta.format_minor = kTraceFormatMinor;
  meta.producer = std::string("pecan-recorder ") + kVersionString;
  std::string argv0 = ReadCommandLineFile(meta.args);
  char path[4096];
  ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  meta.program = length > 0 ? std::string(path, size_t(length)) : argv0;
  meta.pid = uint32_t(getpid());
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  meta.start_unix_ns = int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  meta.settings.chunk_events = settings.chunk_events;
  meta.settings.zstd_level = settings.zstd_level;
  meta.settings.func_events = settings.func_events;
  meta.settings.stack_accesses = settings.stack_accesses;
  meta.settings.fork_policy = ForkPolicyName(settings.fork_policy);
  meta.settings.drop_repeats = settings.drop_repeats;
  return meta;
}

// Library mode without LD_PRELOAD, when the instrumented modules' calls could not be redirected
// to the runtime (plt_redirect.h): it would see no thread start, so the run goes on unrecorded.
constexpr const char* kLoadedAfterLibc =
    "libpecan_rt.so was loaded after libc (by an instrumented library of a program not linked "
    "with it) and cannot redirect that library's calls to itself";
// Library mode without LD_PRELOAD, redirected: what the trace will lack.
constexpr const char* kRedirectedLibraries =
    "library mode (libpecan_rt.so loaded after libc): recording the threads instrumented code "
    "starts; threads the program starts itself run unrecorded (`pecan record` sees them too)";

void RecordExitStatus(int status, void*) {
  exit_status.store(status & 0xff, std::memory_order_relaxed);
  exit_status_known.store(true, std::memory_order_release);
  ReplayOnProgramExit(status & 0xff);
}

// Opens the trace and starts the writer. The caller begins recording its thread afterwards.
bool StartRecording() {
  TraceCollector* fresh = nullptr;
  try {
    fresh = new TraceCollector(*config, BuildTraceMeta(*config));
  } catch (const std::exception& error) {
    RuntimeMessage("cannot record: ", error.what(), "; running unrecorded");
    return false;
  }
  const uint32_t serial = NextThreadSerial();
  if (!AttachCurrentThread(serial, 0)) {
    RuntimeMessage("cannot allocate the thread buffer; running unrecorded");
    fresh->Finish(ProgramExitInfo{}, kExitWaitMs);
    return false;
  }
  if (!fresh->StartThread()) {
    RuntimeMessage("cannot start the trace writer thread; running unrecorded");
    fresh->Finish(ProgramExitInfo{}, kExitWaitMs);
    tls_thread.ring = nullptr;
    return false;
  }
  RememberThreadHandle(pthread_self(), serial, false);  // the first thread can be joined too
  recording_pid.store(getpid(), std::memory_order_relaxed);
  collector.store(fresh, std::memory_order_release);
  return true;
}

}  // namespace

const RuntimeConfig& Config() {
  return config != nullptr ? *config : default_config;
}

bool RecordingThisProcess() {
  return collector.load(std::memory_order_acquire) != nullptr &&
         recording_pid.load(std::memory_order_relaxed) == getpid();
}

void NoteInitialThreadExited() {
  initial_thread_exited.store(true, std::memory_order_release);
}
bool InitialThreadExited() {
  return initial_thread_exited.load(std::memory_order_acquire);
}

bool OnWriterThread() {
  TraceCollector* current = collector.load(std::memory_order_acquire);
  return current != nullptr && current->OnWriterThread();
}

void InitializeRuntime() {
  if (init_state.load(std::memory_order_acquire) == kReady) return;
  int expected = kNotStarted;
  if (!init_state.compare_exchange_strong(expected, kStarting, std::memory_order_acq_rel)) {
    // Re-entered from our own start-up (dlsym, malloc, ...): carry on unrecorded.
    if (initializing_tid.load(std::memory_order_relaxed) == gettid()) return;
    while (init_state.load(std::memory_order_acquire) != kReady) sched_yield();
    return;
  }
  initializing_tid.store(gettid(), std::memory_order_relaxed);
  bool recording = false;
  bool healing = false;
  {
    RuntimeScope scope;
    ResolveRealFunctions();
    config = new RuntimeConfig(ReadRuntimeConfig());
    // Library mode: an instrumented library brought the runtime in after libc.
    const bool late = config->mode != RuntimeMode::kOff && !InterposersComeFirst();
    const bool bypassed = late && !RedirectInstrumentedModules();
    if (late && !bypassed && config->mode == RuntimeMode::kRecord) {
      RuntimeMessage(kRedirectedLibraries);
    }
    if (bypassed && config->mode != RuntimeMode::kReplay) {
      RuntimeMessage(kLoadedAfterLibc, "; running unrecorded (use `pecan record`, or LD_PRELOAD=",
                     (std::string(RuntimeLibraryPath()) + ")").c_str());
      config->mode = RuntimeMode::kOff;
    }
    if (config->mode == RuntimeMode::kReplay) {
      // Replay records as usual (so each thread yields the recorded run's events, with the
      // clip's settings), into PECAN_TRACE if given, else nowhere; every event first waits
      // for its turn in the clip's schedule. A forked child neither records nor replays.
      StartReplayMode(config->func_events, config->stack_accesses);
      if (bypassed) ReplayCannotStart(kLoadedAfterLibc);
      config->fork_policy = ForkPolicy::kStop;
      config->deadlock_wait_ms = 0;  // the replayer's watchdog judges a stuck replay
      if (getenv("PECAN_TRACE") == nullptr) config->trace_path = "/dev/null";
    }
    if (config->mode == RuntimeMode::kHeal) {
      // Nothing is recorded: the healing monitor alone sees the threads (heal_sections.h).
      unsetenv("PECAN_MODE");
      LeaveOutOfChildrenPreload();
      InitThreadLifecycle();
      StartSectionMonitors(false);
      healing = SectionsActive();
      if (!healing) config->mode = RuntimeMode::kOff;
    } else if (config->mode != RuntimeMode::kOff) {
      // Programs this one starts (exec, system, posix_spawn) must not record over our trace.
      unsetenv("PECAN_MODE");
      LeaveOutOfChildrenPreload();
      InitThreadLifecycle();
      recording = StartRecording();
      StartSectionMonitors(recording && config->mode == RuntimeMode::kRecord);
      if (recording) {
        on_exit(RecordExitStatus, nullptr);
        InstallFatalSignalHandlers();
      } else if (config->mode == RuntimeMode::kReplay) {
        ReplayCannotStart("the runtime could not start recording the run's events");
      } else {
        config->mode = RuntimeMode::kOff;
      }
    }
  }
  if (recording) BeginRecordingCurrentThread();
  if (healing) BeginMonitoringCurrentThread(0);
  init_state.store(kReady, std::memory_order_release);
}

void FinishRecording(const ProgramExitInfo& exit, int64_t max_wait_ms) {
  if (!RecordingThisProcess()) return;
  TraceCollector* current = collector.load(std::memory_order_acquire);
  RuntimeScope scope;
  if (!current->Finish(exit, max_wait_ms)) {
    RuntimeMessage("the trace writer did not finish in time; the trace may lack its end");
  }
}

void FinishRecordingAtExit(int status) {
  // Threads still running when the process ends get no THREAD_END: they did not end as threads.
  if (!RecordingThisProcess()) return;
  ProgramExitInfo exit;
  exit.known = true;
  exit.exited = true;
  exit.exit_status = status & 0xff;
  FinishRecording(exit, kExitWaitMs);
}

// Runs after the executable's static destructors, atexit handlers and the destructors of every
// instrumented library (they all depend on this one): the very end of the recording.
__attribute__((destructor(101))) static void FinishAtProcessExit() {
  if (!RecordingThisProcess()) return;
  if (exit_status_known.load(std::memory_order_acquire)) {
    FinishRecordingAtExit(exit_status.load(std::memory_order_relaxed));
  } else {
    FinishRecording(ProgramExitInfo{}, kExitWaitMs);
  }
}

void PrepareFork() {
  if (TraceCollector* current = collector.load(std::memory_order_acquire)) current->PauseForFork();
  LockThreadHandlesForFork();
  LockAllStripesForFork();
}

void AfterForkInParent() {
  UnlockAllStripesAfterFork(false);
  UnlockThreadHandlesAfterFork(false);
  if (TraceCollector* current = collector.load(std::memory_order_acquire))
    current->ResumeAfterFork();
}

void AfterForkInChild() {
  UnlockAllStripesAfterFork(true);
  UnlockThreadHandlesAfterFork(true);
  ThreadState& t = tls_thread;
  if (config == nullptr || config->fork_policy == ForkPolicy::kStop ||
      collector.load(std::memory_order_acquire) == nullptr) {
    // The child records nothing. Its copy of the parent's writer is never touched.
    t.gates = 0;
    t.open_gates = 0;
    t.ring = nullptr;
    return;
  }
  // PECAN_FORK=follow: a fresh recording in <trace>.child-<pid>, this thread as its T0. The
  // parent's writer, rings and tables are abandoned (their threads do not exist here).
  {
    RuntimeScope scope;
    ForgetPublishedRings();
    ForgetStacksAfterFork();
    global_stamp.next.store(0, std::memory_order_relaxed);
    ResetSyncSequencesAfterFork();
    ResetThreadSerials();
    recording_closed.store(false, std::memory_order_relaxed);
    dropped_events.store(0, std::memory_order_relaxed);
    exit_status_known.store(false, std::memory_order_relaxed);
    RuntimeConfig* child_config = new RuntimeConfig(*config);
    child_config->trace_path += ".child-" + std::to_string(getpid());
    config = child_config;
    collector.store(nullptr, std::memory_order_release);
    t.gates = 0;
    t.open_gates = 0;
    t.ring = nullptr;
    if (!StartRecording()) return;
  }
  BeginRecordingCurrentThread();
}

}  // namespace pecan::rt
