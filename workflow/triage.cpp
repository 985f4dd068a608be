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
#include "trace_format/error.h"
#include "workflow/finding_merge.h"
#include "workflow/job_runner.h"
#include "workflow/output_directory.h"
#include "workflow/progress_warnings.h"
#include "workflow/replay_runner.h"
#include "workflow/suppressions_file.h"
#include "workflow/trace_triage.h"
#include "workflow/triage.h"
#include "workflow/triage_partition.h"
#include "workflow/triage_report.h"
#include "workflow/triage_state.h"

namespace pecan::workflow {
namespace {

namespace fs = std::filesystem;

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

// Refuses an output directory that is one of the inputs: writing it would remove what is read.
void RequireOtherDirectory(const std::string& output, const std::string& input,
                           const std::string& what) {
  std::error_code error;
  if (fs::exists(output, error) && fs::equivalent(output, input, error))
    throw PecanError(what + ": -o " + output + " is also an input; write the result elsewhere");
}

}  // namespace

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
  // Several traces at a time share the cores: each analysis keeps to one thread.
  if (options.jobs > 1) analysis.threads = 1;

  // Analysis, N traces at a time; each trace's findings are merged as soon as it is done, so
  // only the traces in progress are in memory, and the best clip of each distinct finding is in
  // a file of `spill` until it is written where it belongs.
  const ClipSpillDirectory spill(output.path());
  std::mutex merge_mutex;
  size_t analyzed = 0;
  auto triage_one = [&](size_t position) {
    TriagedTrace triaged = TriageTrace(traces[position], analysis, spill.path());
    std::lock_guard<std::mutex> guard(merge_mutex);
    state.traces[position] = triaged.trace;
    state.findings.Add(position, std::move(triaged));
  };
  {
    ProgressWithWarnings progress("pecan triage: analyzing " + Plural(mine.size(), "trace") +
                                      (shard ? " (shard " + shard->text() + ")" : ""),
                                  mine.size());
    progress.Update(0);
    RunJobs(mine.size(), options.jobs, [&](size_t n) { triage_one(mine[n]); },
            [&](size_t) { progress.Update(++analyzed); });
  }
  // A trace that ran out of memory beside others may fit alone: those are analyzed again, one
  // at a time, before they are reported as out of memory.
  if (options.jobs > 1) {
    for (size_t position : mine)
      if (state.traces[position].status == "out of memory") triage_one(position);
  }

  std::vector<TriagedFinding> results = WriteTriageClips(state, output);
  if (options.replay)
    ReplayFindings(state, results, Replayable(state, results), output,
                   {options.timeout, options.expect_exit, options.before_each, {}}, options.jobs,
                   "triage");
  return WriteTriageSummaries(state, results, output,
                              {"triage", shard ? shard->text() : "", options.source_root});
}

int RunTriageMerge(const TriageMergeOptions& options) {
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

int RunTriageReplay(const TriageReplayOptions& options) {
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

}  // namespace pecan::workflow
