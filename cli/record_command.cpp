// `pecan record`: runs a program built for pecan with the runtime in record mode, passes its
// stdin/stdout/stderr and exit status through, then says where the trace went and what it holds.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/record_deadlock_text.h"
#include "trace_format/error.h"
#include "trace_format/signal_name.h"
#include "trace_format/trace_reader.h"
#include "workflow/foreground_child.h"
#include "workflow/library_runtime.h"
#include "workflow/program_file.h"
#include "workflow/program_lookup.h"

namespace pecan::cli {

using workflow::ForegroundChild;
using workflow::InspectProgramFile;
using workflow::kRuntimeLibrary;
using workflow::LibraryRuntime;
using workflow::MergedEnvironment;
using workflow::PreloadLibraryRuntime;
using workflow::ProgramFile;
using workflow::RequireExecutable;
using workflow::RuntimePreloaded;
using workflow::SupervisedEnd;
using workflow::TerminationSignal;

namespace {

constexpr const char* kBuildHelp = R"(How to build PROGRAM for recording:
  pecan-cc / pecan-c++ compile and link like cc / c++:   pecan-cc -g -O2 -pthread app.c -o app
  any build system:                                      CC=pecan-cc CXX=pecan-c++ make
  CMake:  find_package(pecan)  then  pecan_instrument(app))";

constexpr const char* kEnvironmentHelp =
    R"(The runtime (libpecan_rt.so) takes its instructions from the environment, so a test harness can
record without `pecan record` by setting these variables itself:
  PECAN_MODE=record        record (default `off`: the program runs normally)
  PECAN_TRACE=FILE         the trace file; %p = pid, %n = program name
                           (default pecan-%n-%p.pecan; `pecan record` sets it from -o)
  PECAN_FUNC_EVENTS=0|1    function entry/exit events (default 1)             --no-func-events
  PECAN_STACK_ACCESSES=0|1 accesses to the thread's own stack (default 0)     --stack-accesses
  PECAN_REPEATS=drop|all   a thread's repeat of an access it made since its last other event
                           is left out (drop, default) or recorded too (all)  --repeats
  PECAN_CHUNK_EVENTS=N     events per trace chunk (default 65536)             --chunk-events
  PECAN_ZSTD_LEVEL=N       zstd level of the chunks (default 1)               --zstd-level
  PECAN_FORK=stop|follow   a forked child records nothing (stop, default) or into its own file,
                           the trace name + .child-<pid> (follow)             --fork
  PECAN_DEADLOCK_WAIT_MS=N every thread blocked in untimed synchronization for N ms with nothing
                           moving ends the run as deadlocked, exit status 86 (default 1500;
                           0: never)                                          --deadlock-wait
  PECAN_QUIET=1            silences the runtime's own messages                --quiet
Replay uses PECAN_MODE=replay, PECAN_CLIP and PECAN_VERDICT (see `pecan replay --help`).)";

struct RecordOptions {
  std::string output;
  bool no_func_events = false;
  bool stack_accesses = false;
  std::optional<uint32_t> chunk_events;
  std::optional<int> zstd_level;
  std::string fork_policy;
  std::string repeats;
  bool quiet = false;
  double timeout = 0;  // seconds; 0: none
  std::optional<double> deadlock_wait;  // seconds; 0: never (default: the runtime's)
  int expect_exit = 0;
  std::vector<std::string> command;
};

// Explains why `program` cannot be recorded and how to build it; empty when it can be (a library
// of it loading the runtime, `library_runtime`, is enough).
std::string WhyNotRecordable(const std::string& program, const ProgramFile& build,
                             const std::string& library_runtime) {
  if (!build.is_elf || build.loads_runtime || RuntimePreloaded() || !library_runtime.empty())
    return {};
  if (build.loads_tsan_runtime) {
    return program +
           " was linked with ThreadSanitizer's runtime (-fsanitize=thread at link "
           "time), not pecan's: relink it with pecan-cc / pecan-c++ or pecan_instrument()";
  }
  return program + " was not built for recording (it does not load " + kRuntimeLibrary +
         "): build it with pecan-cc / pecan-c++ or pecan_instrument()";
}

// "%p" -> the pid, "%n" -> the program's base name, as the runtime would; anything else stays.
std::string ExpandTracePattern(const std::string& pattern, pid_t pid, const std::string& program) {
  std::string result;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() &&
        (pattern[i + 1] == 'p' || pattern[i + 1] == 'n')) {
      result += pattern[i + 1] == 'p' ? std::to_string(pid)
                                      : std::filesystem::path(program).filename().string();
      ++i;
    } else {
      result += pattern[i];
    }
  }
  return result;
}

// Checks that the trace file can be written, before the program runs: the runtime could only
// let it run unrecorded. Creates nothing that stays; an existing file is left as it is.
void CheckTraceWritable(const std::string& pattern, const std::string& program) {
  const std::string path = ExpandTracePattern(pattern, ::getpid(), program);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(path.c_str());
    return;
  }
  if (errno == EEXIST) fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  throw PecanError("record: cannot write the trace " + pattern + ": " + std::strerror(errno));
}

std::map<std::string, std::string> RuntimeEnvironment(const RecordOptions& options,
                                                      const std::string& trace) {
  std::map<std::string, std::string> environment{{"PECAN_MODE", "record"}, {"PECAN_TRACE", trace}};
  if (options.no_func_events) environment["PECAN_FUNC_EVENTS"] = "0";
  if (options.stack_accesses) environment["PECAN_STACK_ACCESSES"] = "1";
  if (options.chunk_events)
    environment["PECAN_CHUNK_EVENTS"] = std::to_string(*options.chunk_events);
  if (options.zstd_level) environment["PECAN_ZSTD_LEVEL"] = std::to_string(*options.zstd_level);
  if (!options.fork_policy.empty()) environment["PECAN_FORK"] = options.fork_policy;
  if (!options.repeats.empty()) environment["PECAN_REPEATS"] = options.repeats;
  if (options.quiet) environment["PECAN_QUIET"] = "1";
  if (options.deadlock_wait)
    environment["PECAN_DEADLOCK_WAIT_MS"] =
        std::to_string(std::llround(*options.deadlock_wait * 1000));
  return environment;
}

// How long a program stopped at --timeout has, after SIGTERM, to finish its trace.
constexpr std::chrono::milliseconds kTimeoutTermGrace{5000};

// pecan record's exit status when --timeout stopped the program (as timeout(1) has it).
constexpr int kTimedOutStatus = 124;

// Runs `program` with `argv` and the environment, in our process group (so the terminal's Ctrl-C
// reaches it and it may read the terminal), and returns how it ended. A SIGINT, SIGTERM or
// SIGHUP sent to pecan goes to the program, which then finishes its trace and ends; so does the
// SIGTERM at `timeout_seconds` (> 0), with SIGKILL if it is still there after the grace.
SupervisedEnd RunAndWait(const std::string& program, std::vector<std::string> argv,
                         std::vector<std::string> environment, double timeout_seconds,
                         pid_t& pid_out) {
  ForegroundChild child(program, std::move(argv), std::move(environment), "record: ");
  const SupervisedEnd end = child.Wait(timeout_seconds, kTimeoutTermGrace);
  pid_out = child.pid();
  return end;
}

std::string HumanBytes(uint64_t bytes) {
  char text[32];
  if (bytes >= 10 * 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024.0));
  } else if (bytes >= 10 * 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  } else {
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  }
  return text;
}

// Why the trace at `trace_path` cannot be analyzed ("" when it can): missing, unreadable or
// without a single event. `pecan record` never reports such a recording as a success.
// Unless quiet, says what the trace holds:
// "pecan: recorded 1234 events of 5 threads in 0.523 s into FILE (12 KiB, 0.9 bytes/event)".
// A trace without its footer is read through to count its events, unless `count_truncated` is
// false (pecan is ending on a signal and a long trace must not keep it).
std::string CheckTrace(const std::string& trace_path, double seconds, bool quiet,
                       bool count_truncated) {
  if (!std::filesystem::exists(trace_path)) {
    return "the program left no trace at " + trace_path +
           " (did it replace itself with exec, or was it killed before the runtime started?)";
  }
  try {
    TraceReader reader(trace_path);
    // A complete trace states its count; a truncated one (the program was killed) is read
    // through, which also says how much of it survived.
    uint64_t events = 0;
    if (std::optional<uint64_t> stated = reader.footer_event_count()) {
      events = *stated;
    } else if (!count_truncated) {
      if (!quiet)
        std::cerr << "pecan: the trace at " << trace_path
                  << " lacks its end (the program was killed); its complete chunks are readable\n";
      return "";
    } else {
      EventBatch batch;
      while (reader.Next(batch)) events += batch.count();
    }
    if (!quiet) {
      // The reader has logged its warnings (a truncated trace) once already.
      char rate[64];
      std::snprintf(rate, sizeof rate, "%.3f s", seconds);
      char per_event[64];
      std::snprintf(
          per_event, sizeof per_event, "%.2f bytes/event",
          events ? static_cast<double>(reader.file_bytes()) / static_cast<double>(events) : 0.0);
      std::cerr << "pecan: recorded " << events << " events of " << reader.threads().size()
                << " threads in " << rate << " into " << trace_path << " ("
                << HumanBytes(reader.file_bytes()) << ", " << per_event << ")\n";
      if (reader.meta().dropped_events > 0) {
        std::cerr << "pecan: warning: the runtime dropped " << reader.meta().dropped_events
                  << " events; the trace is incomplete\n";
      }
    }
    if (events == 0) {
      return "the trace at " + trace_path + " holds no events" +
             (reader.footer_event_count()
                  ? std::string(" (the program ended before its first thread was recorded)")
                  : std::string(" (it ends before its first chunk: the program was killed or "
                                "the runtime could not finish writing it)"));
    }
    return "";
  } catch (const PecanError& e) {
    return "the trace at " + trace_path + " cannot be read: " + e.what();
  }
}

int RunRecord(const RecordOptions& options) {
  if (options.command.empty())
    throw PecanError("record: no program given (pecan record -- PROGRAM [ARGS...])");
  std::string program = RequireExecutable(options.command.front(), "record: ");
  ProgramFile build = InspectProgramFile(program);
  const std::string library_runtime = LibraryRuntime(program, build);
  if (std::string reason = WhyNotRecordable(options.command.front(), build, library_runtime);
      !reason.empty()) {
    std::cerr << "pecan: error: record: " << reason << "\n" << kBuildHelp << "\n";
    return 2;
  }
  if (build.is_elf && !build.calls_instrumentation && !options.quiet) {
    std::cerr << "pecan: warning: " << options.command.front()
              << " loads the runtime but its own code is not instrumented (compiled without "
                 "-fsanitize=thread): only its libraries' accesses and its synchronization are "
                 "recorded\n";
  }

  std::string program_name = std::filesystem::path(program).filename().string();
  std::string pattern =
      options.output.empty() ? "pecan-" + program_name + ".pecan" : options.output;
  // The pid is not known before the program starts, so %p names the file only afterwards; the
  // runtime gets an absolute path because the program may change its working directory.
  std::string absolute_pattern = std::filesystem::absolute(pattern).string();
  CheckTraceWritable(absolute_pattern, program);
  std::map<std::string, std::string> environment = RuntimeEnvironment(options, absolute_pattern);
  PreloadLibraryRuntime(library_runtime, environment);
  pid_t pid = 0;
  const SupervisedEnd end =
      RunAndWait(program, options.command, MergedEnvironment(environment), options.timeout, pid);
  const int status = end.status;
  std::string trace_path = ExpandTracePattern(pattern, pid, program);

  const std::string unusable =
      CheckTrace(trace_path, end.seconds, options.quiet, TerminationSignal() == 0);
  if (!unusable.empty()) std::cerr << "pecan: error: record: " << unusable << "\n";
  if (end.timed_out) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", options.timeout);
    std::cerr << "pecan: " << options.command.front() << " did not end within " << bound
              << " s (a deadlock or a hang?) and was stopped";
    if (unusable.empty())
      std::cerr << "; the trace keeps what it did until then. To see where its threads wait:\n"
                << "  pecan clips " << trace_path << " --recorded -o DIR && pecan replay "
                << "DIR/recorded.clip -- " << options.command.front() << " ...\n"
                << "(or pecan hunt, which does this and reports it)";
    std::cerr << "\n";
    return kTimedOutStatus;
  }
  // The runtime found every thread blocked for good, wrote who waits for what and ended the run.
  if (const std::string deadlock = DescribeRecordedDeadlock(trace_path); !deadlock.empty()) {
    std::cerr << "pecan: deadlock: " << deadlock << "\n"
              << "pecan: every thread of " << options.command.front()
              << " was blocked in synchronization, so the runtime ended it; the trace keeps what "
                 "it did until then (`pecan dump` shows the wait-for state at its end; `pecan "
                 "hunt` reports it with a clip that reproduces it)\n";
    return kDeadlockExitStatus;
  }
  if (WIFSIGNALED(status)) {
    int signal_number = WTERMSIG(status);
    std::cerr << "pecan: " << options.command.front() << " was killed by "
              << SignalName(signal_number) << " (" << strsignal(signal_number) << ")"
              << (WCOREDUMP(status) ? ", core dumped" : "") << "\n";
    return 128 + signal_number;
  }
  // A program that ended normally but left nothing to analyze: the recording failed.
  if (!unusable.empty() && WIFEXITED(status) && WEXITSTATUS(status) == options.expect_exit)
    return 2;
  if (WIFEXITED(status) && WEXITSTATUS(status) != options.expect_exit && !options.quiet)
    std::cerr << "pecan: " << options.command.front() << " exited with status "
              << WEXITSTATUS(status) << " (its normal status is " << options.expect_exit
              << "): the recorded run failed\n";
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

std::function<int()> SetupRecord(CLI::App& app) {
  auto options = std::make_shared<RecordOptions>();
  app.add_option("-o,--output", options->output,
                 "The trace file to write (default: ./pecan-<program>.pecan). %p in the name "
                 "becomes the program's pid, %n its name");
  app.add_flag("--no-func-events", options->no_func_events,
               "Leave out function entry/exit events (smaller trace; reports lose call context)");
  app.add_flag("--stack-accesses", options->stack_accesses,
               "Record every access to each thread's own stack (by default only the parts "
               "other threads reach, from when they do: most of the volume is local)");
  app.add_option("--repeats", options->repeats,
                 "drop (default): when a thread repeats an access (same address, size, kind and "
                 "instruction) with no other event of its own since, only the first is recorded; "
                 "all: record every one (slower; needed only to predict an atomicity violation "
                 "between two runs of one instruction in such a stretch, e.g. a loop re-reading a "
                 "shared bound)")
      ->check(CLI::IsMember({"drop", "all"}));
  app.add_option("--chunk-events", options->chunk_events, "Events per trace chunk (default 65536)")
      ->check(CLI::Range(1u, 1u << 26));
  app.add_option(
         "--zstd-level", options->zstd_level,
         "zstd compression level of the chunks (default 1: the trace writer shares the CPU with "
         "the program; `pecan convert --zstd-level 19` shrinks a trace afterwards)")
      ->check(CLI::Range(-7, 22));
  app.add_option("--fork", options->fork_policy,
                 "What a forked child of the program does: stop (record nothing, default) or "
                 "follow (record into <trace>.child-<pid>)")
      ->check(CLI::IsMember({"stop", "follow"}));
  app.add_flag("-q,--quiet", options->quiet,
               "Print nothing but errors (the runtime's messages included)");
  app.add_option("--timeout", options->timeout,
                 "Stop the program if it has not ended after SEC seconds (default: no bound): "
                 "SIGTERM, so the runtime finishes the trace, and SIGKILL 5 s later. pecan record "
                 "then exits with status 124")
      ->check(CLI::NonNegativeNumber)
      ->type_name("SEC");
  app.add_option("--deadlock-wait", options->deadlock_wait,
                 "When every thread of the program has been blocked in untimed synchronization "
                 "(a lock, a condition wait without timeout, a join, a barrier, a semaphore) for "
                 "SEC seconds and nothing moved, the runtime writes who waits for what (held by "
                 "whom, where) into the trace and ends the program; pecan record prints it and "
                 "exits with status 86 (default 1.5; 0: never). Trylock loops, timed waits and "
                 "sleeps are not blocked")
      ->check(CLI::Range(0.0, 86400.0))
      ->type_name("SEC");
  app.add_option("--expect-exit", options->expect_exit,
                 "The program's normal exit status (default 0): another one is reported as a "
                 "failed run (pecan record still exits with the program's status)")
      ->check(CLI::Range(0, 255));
  app.add_option("command", options->command,
                 "The program to record and its arguments; put them after -- so their options "
                 "stay theirs")
      ->required()
      ->type_name("PROGRAM [ARGS...]");
  app.footer(std::string(kBuildHelp) + "\n\n" + kEnvironmentHelp);
  app.positionals_at_end();
  return [options] { return RunRecord(*options); };
}

}  // namespace

PECAN_COMMAND("record",
              "Run a program built with pecan-cc/pecan_instrument once and record its threads' "
              "accesses and synchronization into a trace; exits with the program's status",
              10, SetupRecord);

}  // namespace pecan::cli
