// `pecan replay`: option parsing and the order of things — check the clip and the program, run
// the program under the replay runtime (or gdb), then print the verdict (cli/replay_*.h).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/replay_gdb_script.h"
#include "cli/replay_output.h"
#include "cli/replay_program_check.h"
#include "cli/replay_program_run.h"
#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "workflow/before_each.h"
#include "workflow/child_supervision.h"
#include "workflow/library_runtime.h"
#include "workflow/program_file.h"
#include "workflow/program_lookup.h"

namespace pecan::cli {

using workflow::EndIfTerminationRequested;
using workflow::InspectProgramFile;
using workflow::LibraryRuntime;
using workflow::MergedEnvironment;
using workflow::PreloadLibraryRuntime;
using workflow::RunBeforeEach;

namespace {

// The parent's bound is the runtime's plus this, so the runtime normally reports first (a run
// stopped as stuck first runs freely for 2 s to confirm it: ReplaySession::kStuckConfirmation).
constexpr double kParentBoundMarginSeconds = 5.0;

constexpr const char* kReplayFooter = R"(What replay needs from you:
  Run the SAME program binary with the SAME arguments (and inputs) as the recorded run: the clip
  is a schedule of that run's events. pecan checks the binary's build-id against the clip and
  refuses another build; arguments, input files and environment are your responsibility. Clips
  of traces imported from STD text cannot be replayed (there is no recorded program).

Verdicts (exit status):
  hatched     (0)  the predicted anomaly's events ran in the predicted order on one location:
                   the anomaly is real. The run then goes on, still one thread at a time, under
                   choices drawn from --seed, to its end; if the program crashes, fails an
                   assertion, exits with another status than --expect-exit, deadlocks or does
                   not end within --timeout, the verdict says so (`failure`).
  followed    (0)  a clip without anomaly events (`pecan clips --recorded`: the whole recorded
                   run, or a failure clip) was followed to its last step; nothing was predicted,
                   so nothing hatched. `failure` as for hatched.
  exposed     (0)  the program failed before the clip was done: a thread took another path than
                   the clip's (divergence) and the run, kept serialized to its end, then failed,
                   or the program failed while following the clip. A real failure of a real
                   schedule; the failure clip reproduces it.
  infeasible  (3)  the prediction is refuted: a thread took another path (divergence) and the
                   program then ended normally or not within the time bound, every thread
                   blocked before the clip's end (deadlock), or the time bound passed. The
                   reason says which.
  error       (2)  missing or damaged clip, program not found, a different build, a program not
                   built with pecan-cc / pecan-c++ / pecan_instrument().

When the program fails, the schedule the run executed is written as a failure clip
(--failure-clip, by default CLIP's name with .failure.clip): `pecan replay FAILURE-CLIP -- ...`
fails the same way every time.

--json prints one object: verdict, failure (null or "assertion" / "crashed" / "exit" /
"deadlock" / "timeout"), failure_message, divergence (null, or where a thread left the clip),
failure_clip (null, or the path written), reason, steps_executed, steps_total, finding_id, pattern, variant,
anomaly (the events: thread, kind, site; in the order the replay ran them), race_reversed (a
race's two accesses ran in the order the recording did not show), exit_status (the program's own,
null when it did not exit by itself: killed, or stopped by the replay), signal, signal_name,
timed_out (the time bound ended the run), seconds, clip. On errors (exit status 2) it prints
{"verdict": "error", "reason": ..., "clip": ...}.

--gdb starts the program under gdb, stopped at pecan_anomaly_formed(), in the frame of the
thread whose anomaly access runs next (not yet run); the message says which thread that is,
which events already ran, and in which order the rest run on `continue`.

The runtime reads PECAN_MODE=replay, PECAN_CLIP, PECAN_VERDICT, PECAN_REPLAY_TIMEOUT (seconds
for the scheduled part, 0 = none) and PECAN_REPLAY_RACE_ORDER; `pecan replay` sets them.)";

struct ReplayCliOptions {
  std::string clip_path;
  double timeout_seconds = 30;
  bool json = false;
  bool gdb = false;
  bool quiet = false;
  std::string race_order = "reversed";
  uint64_t seed = 0;
  std::string strategy = "seeded";
  uint32_t depth = 3;
  uint64_t steps = 0;  // 0: PECAN_PCT_STEPS's default
  int expect_exit = 0;
  std::string before_each;
  std::string failure_clip;
  std::string trace;        // --trace: record the replayed run here
  std::string may_trigger;  // --may-trigger: drfinder's relations
  std::vector<std::string> command;
};

// Whether `path` holds a clip a replay wrote (which a later replay may replace).
bool IsExecutedClip(const std::string& path) {
  try {
    return IsExecutedRunClip(ReadClipFile(path));
  } catch (const PecanError&) {
    return false;
  }
}

// Where the clip of a failing run goes: --failure-clip (the user's choice, replaced), else
// beside CLIP (x.clip -> x.failure.clip), unless a file pecan did not write is there. A clip
// that is itself a run's clip fails again the same way: no new one by default.
std::string FailureClipPath(const ReplayCliOptions& options, const proto::Clip& clip) {
  if (!options.failure_clip.empty()) {
    // Checked before the run: the runtime could only say so once the program has failed.
    const std::filesystem::path chosen = std::filesystem::absolute(options.failure_clip);
    if (::access(chosen.parent_path().c_str(), W_OK) != 0)
      throw PecanError("replay: cannot write the failure clip " + chosen.string() + ": " +
                       chosen.parent_path().string() + ": " + std::strerror(errno));
    return chosen;
  }
  if (IsExecutedRunClip(clip)) return "";
  std::filesystem::path path = std::filesystem::absolute(options.clip_path);
  if (path.extension() == ".clip") path.replace_extension();
  const std::string chosen = path.string() + ".failure.clip";
  std::error_code error;
  if (std::filesystem::exists(chosen, error) && !IsExecutedClip(chosen)) {
    if (!options.quiet)
      std::cerr << "pecan: warning: " << chosen
                << " is not a failure clip pecan wrote; no failure clip will be written "
                   "(choose one with --failure-clip)\n";
    return "";
  }
  return chosen;
}

// The program shares pecan's stdout and may have left its last line unfinished. When stdout is
// a file (hunt and triage send it to a log), the --json object must still start a line of its
// own, or a reader looking for the line that starts with '{' finds none.
void StartJsonOnItsOwnLine() {
  std::cout.flush();
  const off_t end = ::lseek(STDOUT_FILENO, 0, SEEK_CUR);
  if (end <= 0) return;  // a terminal or pipe (nothing to look back at), or an empty file
  const int reader = ::open("/proc/self/fd/1", O_RDONLY | O_CLOEXEC);
  if (reader < 0) return;
  char last = '\n';
  if (::pread(reader, &last, 1, end - 1) == 1 && last != '\n') std::cout << '\n';
  ::close(reader);
}

int Replay(ReplayCliOptions options) {
  // With positionals_at_end, CLI11 2.1 keeps a "--" that follows the clip as the first word.
  if (!options.command.empty() && options.command.front() == "--")
    options.command.erase(options.command.begin());
  if (options.command.empty())
    throw PecanError("replay: no program given (pecan replay CLIP -- PROGRAM [ARGS...])");
  const proto::Clip clip = ReadClipFile(options.clip_path);
  const std::string program = FindProgram(options.command.front());
  CheckProgramMatchesClip(options.clip_path, options.command.front(), program, clip);
  if (!options.quiet) {
    for (const auto& library : ChangedLibraries(clip))
      std::cerr << "pecan: warning: " << library
                << " changed since the recording; steps in it may diverge\n";
  }
  const bool race_reversed = RaceRunsReversed(clip, options.race_order == "reversed");
  const std::vector<AnomalyEventText> anomaly = DescribeAnomaly(clip, race_reversed);

  ReplayScratch scratch;
  const std::string verdict_path = scratch.VerdictPath();
  char runtime_bound[32];
  std::snprintf(runtime_bound, sizeof runtime_bound, "%g",
                options.gdb ? 0.0 : options.timeout_seconds);
  std::map<std::string, std::string> environment{
      {"PECAN_MODE", "replay"},
      {"PECAN_CLIP", std::filesystem::absolute(options.clip_path).string()},
      {"PECAN_VERDICT", verdict_path},
      {"PECAN_REPLAY_TIMEOUT", runtime_bound}};
  if (options.quiet) environment["PECAN_QUIET"] = "1";
  environment["PECAN_REPLAY_RACE_ORDER"] = options.race_order;
  environment["PECAN_REPLAY_SEED"] = std::to_string(options.seed);
  environment["PECAN_REPLAY_STRATEGY"] = options.strategy;
  environment["PECAN_PCT_DEPTH"] = std::to_string(options.depth);
  if (options.steps != 0) environment["PECAN_PCT_STEPS"] = std::to_string(options.steps);
  if (!options.may_trigger.empty())
    environment["PECAN_MAY_TRIGGER"] = std::filesystem::absolute(options.may_trigger).string();
  environment["PECAN_EXPECT_EXIT"] = std::to_string(options.expect_exit);
  PreloadLibraryRuntime(LibraryRuntime(program, InspectProgramFile(program)), environment);
  if (!options.trace.empty())
    environment["PECAN_TRACE"] = std::filesystem::absolute(options.trace).string();
  const std::string failure_clip = FailureClipPath(options, clip);
  if (!failure_clip.empty()) {
    environment["PECAN_EXECUTED_CLIP"] = failure_clip;
    // A failure clip from an earlier replay must not pass for this one's.
    std::error_code ignored;
    std::filesystem::remove(failure_clip, ignored);
  }

  RunBeforeEach(options.before_each, "replay");
  ChildEnd end;
  if (options.gdb) {
    const std::string script = WriteGdbScript(anomaly, verdict_path);
    std::vector<std::string> argv{"gdb", "-q", "-x", script, "--args", program};
    argv.insert(argv.end(), options.command.begin() + 1, options.command.end());
    end = RunBounded("gdb", argv, MergedEnvironment(environment), 0);
  } else {
    const double bound =
        options.timeout_seconds > 0 ? options.timeout_seconds + kParentBoundMarginSeconds : 0;
    end = RunBounded(program, options.command, MergedEnvironment(environment), bound);
  }
  const std::optional<proto::Verdict> runtime_verdict = ReadVerdict(verdict_path);
  scratch.Remove();
  // Asked to end while the program ran: it is gone now, and so is pecan; no verdict.
  EndIfTerminationRequested();

  FinalVerdict verdict = Conclude(runtime_verdict, end, clip, options.command.front(),
                                  options.timeout_seconds, options.expect_exit);
  if (options.gdb && verdict.verdict != "hatched" && !runtime_verdict) {
    verdict.verdict = "error";
    verdict.reason = "gdb ended before the runtime wrote a verdict";
  }
  if (options.json) {
    StartJsonOnItsOwnLine();
    PrintVerdictJson(std::cout, verdict, clip, anomaly, race_reversed, options.clip_path);
  } else if (verdict.verdict == "error") {
    std::cerr << "pecan: error: replay: " << verdict.reason << "\n";
  } else {
    PrintVerdictLine(std::cout, verdict, clip, anomaly);
  }
  return ExitStatusFor(verdict);
}

int RunReplay(const ReplayCliOptions& options) {
  try {
    return Replay(options);
  } catch (const PecanError& e) {
    // Tools reading --json get an object for every outcome; the error line follows on stderr.
    if (options.json) {
      StartJsonOnItsOwnLine();
      PrintErrorJson(std::cout, e.what(), options.clip_path);
    }
    throw;
  }
}

std::function<int()> SetupReplay(CLI::App& app) {
  auto options = std::make_shared<ReplayCliOptions>();
  app.add_option("clip", options->clip_path, "The clip to follow (written by `pecan clips`)")
      ->required()
      ->type_name("CLIP");
  app.add_option("--timeout", options->timeout_seconds,
                 "Seconds the whole replay may take (default 30); the scheduled part must end "
                 "within it or the prediction counts as infeasible")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", options->json, "Print the verdict as one JSON object");
  app.add_flag("--gdb", options->gdb,
               "Run under gdb and stop where the anomaly forms (no time bound)");
  app.add_option("--race-order", options->race_order,
                 "For a data race: run its two accesses in the order the recording did not show "
                 "(reversed, default: the one that can fail) or as recorded")
      ->check(CLI::IsMember({"reversed", "recorded"}));
  app.add_option("--seed", options->seed,
                 "Seed of the choices that keep the run serialized after the clip's last step or "
                 "a divergence (default 0); the same clip and seed replay the same run");
  app.add_option("--strategy", options->strategy,
                 "How the run goes on after the clip: seeded (default: random choices in slices "
                 "of up to 64 events), random (a random ready thread at every event), pct "
                 "(PCT priorities, see pecan fuzz --help) or racefuzzer (random, postponing "
                 "threads at the statements of the clip's race until a real race forms) or "
                 "drfinder (random, reversing lock orders --may-trigger predicts; see pecan "
                 "fuzz --help)")
      ->check(CLI::IsMember({"seeded", "random", "pct", "racefuzzer", "drfinder"}));
  app.add_option("--may-trigger", options->may_trigger,
                 "With --strategy drfinder: the may-trigger relations (written by pecan fuzz "
                 "--strategy drfinder, next to the clip it runs)")
      ->type_name("FILE");
  app.add_option("--depth", options->depth, "With --strategy pct: the bug depth d (default 3)")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--steps", options->steps,
                 "With --strategy pct: the run length k its change points are drawn over "
                 "(default 1000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--expect-exit", options->expect_exit,
                 "The program's normal exit status (default 0); any other status is a failure")
      ->check(CLI::Range(0, 255));
  app.add_option("--before-each", options->before_each,
                 "A shell command run before the program, to give it the starting state of the "
                 "recording (e.g. 'rm -f out.txt'); the replay stops if it fails")
      ->type_name("CMD");
  app.add_option("--failure-clip", options->failure_clip,
                 "Where to write the clip of the run when the program fails (default: CLIP's "
                 "name with .failure.clip)")
      ->type_name("PATH");
  app.add_option("--trace", options->trace,
                 "Also record the replayed run into this trace file, for pecan analyze, clips "
                 "or triage (by default a replay records nothing)")
      ->type_name("FILE");
  app.add_flag("-q,--quiet", options->quiet, "Silence warnings and the runtime's messages");
  app.add_option("command", options->command,
                 "The recorded program and its recorded arguments, after --")
      ->required()
      ->type_name("PROGRAM [ARGS...]");
  app.footer(kReplayFooter);
  return [options] { return RunReplay(*options); };
}

}  // namespace

PECAN_COMMAND("replay",
              "Re-run a program so it follows a clip and report whether the predicted anomaly "
              "hatched (exit 0) or the prediction is infeasible (exit 3)",
              50, SetupReplay);

}  // namespace pecan::cli
