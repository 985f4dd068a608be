// `pecan triage (TRACE... | DIR)`: analyzes many traces in parallel (N at a time, so memory stays
// bounded), merges their findings, writes the best clip of each distinct finding, optionally
// confirms them by replay, and summarizes in summary.json, summary.sarif and summary.html.
// Past one machine: `--shard K/N` triages the K-th part of the traces, `pecan triage merge`
// joins the parts into what one triage writes, and `pecan triage replay --shard K/N` splits the
// replays of a merged result.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/builtin_patterns.h"
#include "cli/command.h"
#include "trace_format/error.h"
#include "workflow/finding_merge.h"
#include "workflow/job_runner.h"
#include "workflow/output_directory.h"
#include "workflow/progress_warnings.h"
#include "workflow/replay_runner.h"
#include "workflow/suppressions_file.h"
#include "workflow/trace_triage.h"
#include "workflow/triage_partition.h"
#include "workflow/triage_report.h"
#include "workflow/triage_state.h"

namespace pecan::cli {
namespace {

namespace fs = std::filesystem;

struct TriageOptions {
  std::vector<std::string> inputs;   // trace files and directories
  std::vector<std::string> command;  // the program (and its arguments) after --
  std::string output;                // empty: pecan-triage (pecan-triage-shard-K with --shard)
  size_t jobs = 2;
  bool replay = false;
  double timeout = 30;
  std::string regions = "locks";
  std::string patterns = "all";
  std::string source_root;  // empty: the working directory
  int expect_exit = 0;
  std::string before_each;
  std::string shard;  // "K/N"; empty: every trace
  std::string suppressions;
};

std::string Plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// The trace files named by the inputs: files as given, directories searched (recursively) for
// *.pecan. Each file once, in the order given; a directory's files sorted by path.
std::vector<std::string> ExpandInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> traces;
  std::set<std::string> seen;
  auto add = [&](const std::string& path) {
    std::error_code error;
    fs::path same = fs::weakly_canonical(path, error);
    if (seen.insert(error ? path : same.string()).second) traces.push_back(path);
  };
  for (const auto& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error)) {
      std::vector<std::string> found;
      fs::recursive_directory_iterator it(input, error), end;
      for (; !error && it != end; it.increment(error))
        if (it->is_regular_file(error) && it->path().extension() == ".pecan")
          found.push_back(it->path().string());
      if (error) throw PecanError("triage: " + input + ": cannot list: " + error.message());
      if (found.empty())
        throw PecanError("triage: " + input + ": no .pecan files in this directory");
      std::sort(found.begin(), found.end());
      for (const auto& path : found) add(path);
    } else if (fs::exists(input, error)) {
      add(input);
    } else {
      throw PecanError("triage: " + input + ": no such file or directory");
    }
  }
  return traces;
}

// The program to replay with, checked before hours of analysis rather than after.
void CheckReplayCommand(bool replay, const std::vector<std::string>& command,
                        const std::string& what, const std::string& usage) {
  if (replay && command.empty())
    throw PecanError(what + ": --replay needs the program after --: " + usage +
                     " --replay -- PROGRAM [ARGS...]");
  if (!replay && !command.empty())
    throw PecanError(what + ": a program after -- is only used with --replay (" + usage +
                     " --replay -- " + command.front() + " ...)");
  if (replay) RequireExecutable(command.front(), what + ": --replay: ");
}

// Each trace's size in bytes (0 when it cannot be read): what balances the shards.
std::vector<uint64_t> TraceSizes(const std::vector<std::string>& traces) {
  std::vector<uint64_t> sizes;
  for (const auto& path : traces) {
    std::error_code error;
    const uintmax_t size = fs::file_size(path, error);
    sizes.push_back(error ? 0 : static_cast<uint64_t>(size));
  }
  return sizes;
}

// Where a part goes: -o when given, else a default that shards of one job do not share.
std::string OutputOf(const std::string& option, const std::string& base,
                     const std::optional<ShardSpec>& shard) {
  if (!option.empty()) return option;
  return shard ? base + "-shard-" + std::to_string(shard->index) : base;
}

// Replays the clips of results[which...] (written in the output directory) with the program of
// state.replay_command, N at a time; each verdict goes to the result and to the state.
void ReplayFindings(TriageState& state, std::vector<TriagedFinding>& results,
                    const std::vector<size_t>& which, OutputDirectory& output,
                    const ReplayRunSettings& replay, size_t jobs, const std::string& what) {
  if (which.empty()) return;
  ProgressWithWarnings progress("pecan " + what + ": replaying " + Plural(which.size(), "clip"),
                                which.size());
  progress.Update(0);
  size_t replayed = 0;
  std::mutex state_mutex;
  RunJobs(
      which.size(), replay.ParallelReplays(jobs),
      [&](size_t n) {
        TriagedFinding& finding = results[which[n]];
        const std::string& id = finding.summary.id;
        const std::string log = output.Claim("replays/" + id + ".log");
        const std::string failure_clip = output.Claim("failures/" + id + ".clip");
        finding.summary.verdict =
            ReplayClip((fs::path(output.path()) / finding.summary.clip_path).string(),
                       state.replay_command, replay, log, failure_clip);
        finding.replay_log = log;
        std::lock_guard<std::mutex> guard(state_mutex);
        state.findings.SetVerdict(finding.summary.key, finding.summary.verdict, log);
      },
      [&](size_t) { progress.Update(++replayed); });
}

// The findings whose clips can replay with the state's program.
std::vector<size_t> Replayable(const TriageState& state,
                               const std::vector<TriagedFinding>& results) {
  std::vector<size_t> which;
  for (size_t i = 0; i < results.size(); i++)
    if (ReplaysWith(results[i], state.replay_command)) which.push_back(i);
  return which;
}

int RunTriage(const TriageOptions& options) {
  CheckReplayCommand(options.replay, options.command, "triage", "pecan triage TRACES");
  try {  // a bad spec fails here, not as every trace "damaged"
    SelectPatterns(options.patterns);
  } catch (const PecanError& e) {
    throw PecanError("triage: " + std::string(e.what()));
  }
  if (options.inputs.empty())
    throw PecanError("triage: no traces given: pecan triage (TRACE | DIR)... (see --help)");
  const auto suppressions = LoadSuppressions(options.suppressions, "triage");
  std::vector<std::string> traces = ExpandInputs(options.inputs);
  if (traces.empty()) throw PecanError("triage: no traces given");
  std::optional<ShardSpec> shard;
  if (!options.shard.empty()) shard = ParseShard(options.shard, "triage: --shard");

  // This part's traces: all of them, or the shard's (by position in the whole list).
  std::vector<size_t> mine;
  if (shard) {
    mine = ItemsOfShard(TraceSizes(traces), *shard);
  } else {
    for (size_t i = 0; i < traces.size(); i++) mine.push_back(i);
  }

  OutputDirectory output(OutputOf(options.output, "pecan-triage", shard), "triage", kTriageFiles);
  TriageState state;
  state.total_traces = traces.size();
  state.inputs_digest = InputListDigest(traces);
  state.patterns = options.patterns;
  state.regions = options.regions;
  state.suppressions = SuppressionsDigest(suppressions.get());
  if (options.replay) state.replay_command = options.command;

  AnalysisOptions analysis;
  analysis.patterns = options.patterns;
  analysis.regions = options.regions == "functions" ? RegionMode::kFunctions : RegionMode::kLocks;
  analysis.suppressions = suppressions;

  // Analysis, N traces at a time; each trace's findings are merged as soon as it is done, so
  // only the traces in progress and the best clip of each distinct finding are in memory.
  std::mutex merge_mutex;
  size_t analyzed = 0;
  {
    ProgressWithWarnings progress("pecan triage: analyzing " + Plural(mine.size(), "trace") +
                                      (shard ? " (shard " + shard->text() + ")" : ""),
                                  mine.size());
    progress.Update(0);
    RunJobs(
        mine.size(), options.jobs,
        [&](size_t n) {
          const size_t position = mine[n];
          TriagedTrace triaged = TriageTrace(traces[position], analysis);
          std::lock_guard<std::mutex> guard(merge_mutex);
          state.traces[position] = triaged.trace;
          state.findings.Add(position, std::move(triaged));
        },
        [&](size_t) { progress.Update(++analyzed); });
  }

  std::vector<TriagedFinding> results = WriteTriageClips(state, output);
  if (options.replay)
    ReplayFindings(state, results, Replayable(state, results), output,
                   {options.timeout, options.expect_exit, options.before_each, {}}, options.jobs,
                   "triage");
  return WriteTriageSummaries(state, results, output,
                              {"triage", shard ? shard->text() : "", options.source_root});
}

// Refuses an output directory that is one of the inputs: writing it would remove what is read.
void RequireOtherDirectory(const std::string& output, const std::string& input,
                           const std::string& what) {
  std::error_code error;
  if (fs::exists(output, error) && fs::equivalent(output, input, error))
    throw PecanError(what + ": -o " + output + " is also an input; write the result elsewhere");
}

struct MergeOptions {
  std::vector<std::string> parts;
  std::string output = "pecan-triage";
  std::string source_root;
};

int RunMerge(const MergeOptions& options) {
  const std::string what = "triage merge";
  TriageState state;
  for (size_t i = 0; i < options.parts.size(); i++) {
    RequireOtherDirectory(options.output, options.parts[i], what);
    TriageState part = ReadTriageState(options.parts[i], what);
    if (i == 0)
      state = std::move(part);
    else
      state.Merge(std::move(part), what + ": " + options.parts[i]);
  }
  OutputDirectory output(options.output, "triage", kTriageFiles);
  std::vector<TriagedFinding> results = WriteTriageClips(state, output);
  return WriteTriageSummaries(state, results, output, {what, "", options.source_root});
}

struct ReplayOptions {
  std::string input;                 // a triage's (or merge's) output directory
  std::vector<std::string> command;  // the program after --
  std::string output;                // empty: pecan-triage-replay (-shard-K with --shard)
  std::string shard;
  size_t jobs = 2;
  double timeout = 30;
  int expect_exit = 0;
  std::string before_each;
  std::string source_root;
};

int RunReplay(const ReplayOptions& options) {
  const std::string what = "triage replay";
  if (options.command.empty())
    throw PecanError(what +
                     ": needs the program after --: pecan triage replay [--shard K/N] DIR "
                     "-o OUT -- PROGRAM [ARGS...]");
  RequireExecutable(options.command.front(), what + ": ");
  std::optional<ShardSpec> shard;
  if (!options.shard.empty()) shard = ParseShard(options.shard, what + ": --shard");
  const std::string dir = OutputOf(options.output, "pecan-triage-replay", shard);
  RequireOtherDirectory(dir, options.input, what);
  TriageState state = ReadTriageState(options.input, what);
  if (!state.replay_command.empty() && state.replay_command != options.command)
    throw PecanError(what + ": " + options.input + " was replayed with another program (" +
                     state.replay_command.front() + ", not " + options.command.front() + ")");
  state.replay_command = options.command;

  // The clips this part replays: the shard's share of those recorded from this program,
  // balanced by clip length. Their earlier verdicts, if any, are replaced.
  std::vector<TriagedFinding> all = state.findings.Results();
  std::vector<size_t> which = Replayable(state, all);
  if (shard) {
    std::vector<uint64_t> steps;
    for (size_t i : which) steps.push_back(all[i].summary.clip_steps);
    std::vector<size_t> share;
    for (size_t n : ItemsOfShard(steps, *shard)) share.push_back(which[n]);
    which = std::move(share);
  }
  for (size_t i : which) state.findings.SetVerdict(all[i].summary.key, {}, "");

  OutputDirectory output(dir, "triage", kTriageFiles);
  std::vector<TriagedFinding> results = WriteTriageClips(state, output);
  ReplayFindings(state, results, which, output,
                 {options.timeout, options.expect_exit, options.before_each, {}}, options.jobs,
                 what);
  return WriteTriageSummaries(state, results, output,
                              {what, shard ? shard->text() : "", options.source_root});
}

// CLI11 gives every positional to the first positional option that takes it, "--" or not. So
// the program's option comes first and takes a word only once the subcommand has passed "--"
// (CLI11 keeps that separator among the subcommand's remaining() words, since this option still
// expects a value); every earlier word fails its check and falls through to the next positional.
// Its bound is finite (2^20 words) only because CLI11 refuses two unbounded positionals that are
// not required, and the traces cannot be required beside the merge and replay subcommands.
void AddProgramAfterSeparator(CLI::App& app, std::vector<std::string>& command,
                              const std::string& help) {
  CLI::App* self = &app;
  auto after_separator = [self](std::string&) -> std::string {
    std::vector<std::string> seen = self->remaining();
    if (std::find(seen.begin(), seen.end(), "--") != seen.end()) return "";
    return "not after --";
  };
  app.add_option("program", command, help)
      ->expected(1, 1 << 20)
      ->check(CLI::Validator(after_separator, "", "after --"))
      ->group("");  // documented with the other positionals and in the footer
  app.validate_positionals();
}

// CLI11 would list the hidden program option first in the usage line; say it as users type it.
class TriageHelpFormatter : public CLI::Formatter {
 public:
  explicit TriageHelpFormatter(std::string arguments) : arguments_(std::move(arguments)) {}
  std::string make_usage(const CLI::App*, std::string name) const override {
    return "Usage: " + name + " " + arguments_ + "\n";
  }

 private:
  std::string arguments_;
};

std::function<int()> SetupTriage(CLI::App& app) {
  auto options = std::make_shared<TriageOptions>();
  AddProgramAfterSeparator(app, options->command, "With --replay: the program and its arguments");
  // Not required, or CLI11 would take "merge" and "replay" for traces (RunTriage says when none
  // are given).
  app.add_option("traces", options->inputs,
                 "Trace files (.pecan), or directories searched recursively for *.pecan files; "
                 "with --replay, then -- and the program with its arguments, as recorded")
      ->type_name("TRACE|DIR");
  app.add_option(
      "-o,--output", options->output,
      "Directory for summary.html, summary.json, summary.sarif, triage-state.json, clips/ and "
      "replays/ (default ./pecan-triage; with --shard K/N ./pecan-triage-shard-K). A previous "
      "triage's files there are replaced; files pecan did "
      "not write are never touched (it stops if one is in the way)");
  app.add_option("-j,--jobs", options->jobs,
                 "Traces analyzed (and clips replayed) at the same time (default 2); memory grows "
                 "with this, not with the number of traces")
      ->check(CLI::Range(size_t{1}, size_t{256}));
  app.add_flag("--replay", options->replay,
               "Replay the best clip of every distinct finding to confirm or refute it; the "
               "program to run comes after --, as it was recorded (clips recorded from other "
               "programs are left unreplayed)");
  app.add_option("--timeout", options->timeout, "Time bound of each replay in seconds (default 30)")
      ->check(CLI::PositiveNumber);
  app.add_option("--expect-exit", options->expect_exit,
                 "With --replay: the program's normal exit status (default 0); any other is a "
                 "failure")
      ->check(CLI::Range(0, 255));
  app.add_option("--before-each", options->before_each,
                 "With --replay: a shell command run before each replay, so every replay starts "
                 "from the same state; replays then run one at a time")
      ->type_name("CMD");
  app.add_option("--regions", options->regions,
                 "Atomic regions: locks (default) or functions (see pecan hunt --help)")
      ->check(CLI::IsMember({"locks", "functions"}));
  app.add_option(
      "--patterns", options->patterns,
      "Anomalies to look for: comma-separated race, atomicity, asv, deadlock, all (default), or "
      "the path of a pattern file");
  app.add_option("--suppressions", options->suppressions, kSuppressionsHelp)->type_name("FILE");
  app.add_option("--shard", options->shard,
                 "Triage only the K-th of N parts of the traces (K from 0, as SLURM_ARRAY_TASK_ID "
                 "and JOB_COMPLETION_INDEX count), split by size the same way for every shard "
                 "given the same traces; join the parts with pecan triage merge. A shard exits 0 "
                 "once its part is written")
      ->type_name("K/N");
  app.add_option("--source-root", options->source_root,
                 "summary.sarif names source files below this directory relative to it "
                 "(uriBaseId SRCROOT), as code scanning wants; default: the working directory")
      ->check(CLI::ExistingDirectory);
  app.footer(
      "Typical use: record a test suite with pecan record's environment variables, then triage\n"
      "every trace it left in one go, in CI or by hand.\n"
      "\n"
      "Findings are merged by pattern, variant and sites (module + offset, so runs of the same\n"
      "binary agree); each keeps the list of traces that show it and the shortest clip among\n"
      "them, written to clips/. A damaged trace is reported and skipped; a truncated one is\n"
      "analyzed as far as it goes. Open summary.html in any browser (it needs no network): a\n"
      "sortable table of the findings and each clip as a swimlane picture. summary.sarif is for\n"
      "code-scanning tools; summary.json holds everything: counts, each trace's status, and\n"
      "each finding with its events, traces, clip and verdict.\n"
      "\n"
      "Exit status: 0 done; 1 when --replay confirmed a finding or made the program fail; 2 on "
      "errors (bad arguments,\n"
      "every trace damaged, or a replay that could not run).\n"
      "\n"
      "Past one machine (a Slurm job array, a Kubernetes Indexed Job, a CI matrix): each of N\n"
      "jobs runs pecan triage --shard K/N with the same traces, on storage they all see, into a\n"
      "directory of its own; then pecan triage merge -o OUT PART... writes exactly what one\n"
      "triage of all the traces writes. pecan triage replay --shard K/N OUT -- PROGRAM splits\n"
      "the replays the same way, and merge joins those parts too.\n"
      "\n"
      "Examples:\n"
      "  pecan triage runs/ -o triage\n"
      "  pecan triage runs/*.pecan --jobs 4 --replay -- ./app input.txt\n"
      "  pecan triage runs/ --shard 0/4 -o parts/0     (and 1/4, 2/4, 3/4 elsewhere)\n"
      "  pecan triage merge -o triage parts/*\n"
      "  pecan triage replay --shard 0/2 triage -o replays/0 -- ./app input.txt");
  app.formatter(std::make_shared<TriageHelpFormatter>(
      "[OPTIONS] (TRACE | DIR)... [--replay -- PROGRAM [ARGS...]]\n"
      "       pecan triage merge [OPTIONS] DIR...\n"
      "       pecan triage replay [OPTIONS] DIR -- PROGRAM [ARGS...]"));

  auto merge = std::make_shared<MergeOptions>();
  CLI::App* merge_app = app.add_subcommand(
      "merge", "Join the output directories of triage shards (or of earlier merges) into one");
  merge_app
      ->add_option("parts", merge->parts,
                   "Output directories of pecan triage --shard, pecan triage replay, or "
                   "earlier merges, of the same traces")
      ->required()
      ->type_name("DIR");
  merge_app->add_option("-o,--output", merge->output,
                        "Directory for the merged summary.html, summary.json, summary.sarif, "
                        "triage-state.json and clips/ (default ./pecan-triage)");
  merge_app
      ->add_option("--source-root", merge->source_root,
                   "As for pecan triage: summary.sarif names sources relative to it")
      ->check(CLI::ExistingDirectory);
  merge_app->formatter(std::make_shared<TriageHelpFormatter>("[OPTIONS] DIR..."));
  merge_app->footer(
      "Writes exactly what one pecan triage of all the parts' traces writes: the same findings,\n"
      "ids, counts, best clips and verdicts. Merging is associative, commutative and\n"
      "idempotent, so merges can be chained (merge pairs, then merge the merges). Parts of other\n"
      "traces, patterns or programs are refused; traces no part covered are counted as missing,\n"
      "with a warning. Exit status as pecan triage's.");

  auto replay = std::make_shared<ReplayOptions>();
  CLI::App* replay_app = app.add_subcommand(
      "replay",
      "Replay the clips of a triage's (or merge's) result, or the K-th of N parts of them");
  replay_app->formatter(
      std::make_shared<TriageHelpFormatter>("[OPTIONS] DIR -- PROGRAM [ARGS...]"));
  AddProgramAfterSeparator(*replay_app, replay->command, "The program and its arguments");
  replay_app
      ->add_option("input", replay->input,
                   "The output directory of pecan triage or pecan triage merge")
      ->required()
      ->type_name("DIR");
  replay_app->add_option("-o,--output", replay->output,
                         "Directory for the result with verdicts (default "
                         "./pecan-triage-replay; with --shard K/N ./pecan-triage-replay-shard-K)");
  replay_app
      ->add_option("--shard", replay->shard,
                   "Replay only the K-th of N parts of the clips (K from 0), split by clip "
                   "length; merge the parts with pecan triage merge. Exits 0 once written")
      ->type_name("K/N");
  replay_app->add_option("-j,--jobs", replay->jobs, "Clips replayed at the same time (default 2)")
      ->check(CLI::Range(size_t{1}, size_t{256}));
  replay_app
      ->add_option("--timeout", replay->timeout,
                   "Time bound of each replay in seconds (default 30)")
      ->check(CLI::PositiveNumber);
  replay_app
      ->add_option("--expect-exit", replay->expect_exit,
                   "The program's normal exit status (default 0)")
      ->check(CLI::Range(0, 255));
  replay_app
      ->add_option("--before-each", replay->before_each,
                   "A shell command run before each replay; replays then run one at a time")
      ->type_name("CMD");
  replay_app
      ->add_option("--source-root", replay->source_root,
                   "As for pecan triage: summary.sarif names sources relative to it")
      ->check(CLI::ExistingDirectory);

  return [options, merge, merge_app, replay, replay_app] {
    if (merge_app->parsed()) return RunMerge(*merge);
    if (replay_app->parsed()) return RunReplay(*replay);
    return RunTriage(*options);
  };
}

}  // namespace

PECAN_COMMAND("triage",
              "Analyze many traces in parallel, merge duplicate findings, write the best clip of "
              "each and an HTML/JSON/SARIF summary; optionally confirm each by replay",
              6, SetupTriage);

}  // namespace pecan::cli
