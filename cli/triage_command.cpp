// `pecan triage (TRACE... | DIR)`: analyzes many traces in parallel (N at a time, so memory stays
// bounded), merges their findings, writes the best clip of each distinct finding, optionally
// confirms them by replay, and summarizes in summary.json, summary.sarif and summary.html.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/builtin_patterns.h"
#include "cli/command.h"
#include "cli/workflow_finding_merge.h"
#include "cli/workflow_finding_summary.h"
#include "cli/workflow_html_summary.h"
#include "cli/workflow_job_runner.h"
#include "cli/workflow_output_directory.h"
#include "cli/workflow_progress_warnings.h"
#include "cli/workflow_replay_runner.h"
#include "cli/workflow_summary_json.h"
#include "cli/workflow_summary_sarif.h"
#include "cli/workflow_trace_triage.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/output_file.h"

namespace pecan::cli {
namespace {

namespace fs = std::filesystem;

struct TriageOptions {
  std::vector<std::string> inputs;   // trace files and directories
  std::vector<std::string> command;  // the program (and its arguments) after --
  std::string output = "pecan-triage";
  size_t jobs = 2;
  bool replay = false;
  double timeout = 30;
  std::string regions = "locks";
  std::string patterns = "all";
  std::string source_root;  // empty: the working directory
  int expect_exit = 0;
  std::string before_each;
};

std::string Plural(size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string BaseName(const std::string& path) {
  return fs::path(path).filename().string();
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
void CheckReplayCommand(const TriageOptions& options) {
  if (options.replay && options.command.empty())
    throw PecanError(
        "triage: --replay needs the program after --: pecan triage TRACES --replay "
        "-- PROGRAM [ARGS...]");
  if (!options.replay && !options.command.empty())
    throw PecanError(
        "triage: a program after -- is only used with --replay (pecan triage TRACES "
        "--replay -- " +
        options.command.front() + " ...)");
  if (options.replay) RequireExecutable(options.command.front(), "triage: --replay: ");
}

// What triage writes in DIR. A previous triage's files there are removed first; anyone else's
// refuse the triage before it starts (workflow_output_directory.h).
const std::vector<std::string> kTriageFiles = {"summary.json", "summary.sarif", "summary.html",
                                               "clips/",       "replays/",      "failures/"};

// Whole or not at all (a full disk leaves no empty file): trace_format/output_file.h.
void WriteFile(const std::string& path, const std::string& text) {
  WriteOutputFile(path, text);
}

int RunTriage(const TriageOptions& options) {
  CheckReplayCommand(options);
  try {  // a bad spec fails here, not as every trace "damaged"
    SelectPatterns(options.patterns);
  } catch (const PecanError& e) {
    throw PecanError("triage: " + std::string(e.what()));
  }
  std::vector<std::string> traces = ExpandInputs(options.inputs);
  if (traces.empty()) throw PecanError("triage: no traces given");

  const std::string dir = options.output;
  OutputDirectory output(dir, "triage", kTriageFiles);

  AnalysisOptions analysis;
  analysis.patterns = options.patterns;
  analysis.regions = options.regions == "functions" ? RegionMode::kFunctions : RegionMode::kLocks;

  // Analysis, N traces at a time; each trace's findings are merged as soon as it is done, so
  // only the traces in progress and the best clip of each distinct finding are in memory.
  std::vector<SummaryTrace> trace_results(traces.size());
  FindingMerger merger;
  std::mutex merge_mutex;
  size_t analyzed = 0;
  {
    ProgressWithWarnings progress("pecan triage: analyzing " + Plural(traces.size(), "trace"),
                                  traces.size());
    progress.Update(0);
    RunJobs(
        traces.size(), options.jobs,
        [&](size_t i) {
          TriagedTrace triaged = TriageTrace(traces[i], analysis);
          std::lock_guard<std::mutex> guard(merge_mutex);
          trace_results[i] = triaged.trace;
          merger.Add(i, std::move(triaged));
        },
        [&](size_t) { progress.Update(++analyzed); });
  }

  std::vector<TriagedFinding> merged = merger.Results();
  std::vector<SummaryFinding> findings;
  std::vector<size_t> to_replay;
  size_t other_program = 0;
  for (TriagedFinding& finding : merged) {
    SummaryFinding summary = std::move(finding.summary);
    if (finding.clip != nullptr) {
      summary.clip_path = "clips/" + summary.id + ".clip";
      const std::string clip_file = output.Claim(summary.clip_path);
      WriteClipFile(clip_file, *finding.clip);
      if (options.replay) {
        // A corpus may hold several programs' traces: only clips of this one can replay.
        if (BaseName(finding.clip->program()) == BaseName(options.command.front())) {
          summary.replay_command = ReplayCommandLine(clip_file, options.command);
          to_replay.push_back(findings.size());
        } else {
          other_program++;
        }
      }
    }
    findings.push_back(std::move(summary));
  }

  if (!to_replay.empty()) {
    ProgressWithWarnings progress("pecan triage: replaying " + Plural(to_replay.size(), "clip"),
                                  to_replay.size());
    progress.Update(0);
    size_t replayed = 0;
    const ReplayRunSettings replay{options.timeout, options.expect_exit, options.before_each, {}};
    RunJobs(
        to_replay.size(), replay.ParallelReplays(options.jobs),
        [&](size_t n) {
          SummaryFinding& finding = findings[to_replay[n]];
          const std::string log = output.Claim("replays/" + finding.id + ".log");
          const std::string failure_clip = output.Claim("failures/" + finding.id + ".clip");
          finding.verdict = ReplayClip((fs::path(dir) / finding.clip_path).string(),
                                       options.command, replay, log, failure_clip);
        },
        [&](size_t) { progress.Update(++replayed); });
  }
  std::stable_sort(findings.begin(), findings.end(), SummaryOrder);

  size_t damaged = 0, truncated = 0, confirmed = 0, exposed = 0, refuted = 0, replay_errors = 0,
         no_clip = 0;
  for (const auto& t : trace_results) {
    damaged += t.status == "damaged";
    truncated += t.status == "truncated";
  }
  for (const auto& f : findings) {
    confirmed += f.verdict.confirmed();
    exposed += f.verdict.outcome == "exposed";
    refuted += f.verdict.outcome == "infeasible";
    replay_errors += f.verdict.outcome == "error";
    no_clip += f.clip_path.empty();
  }

  nlohmann::json traces_json = nlohmann::json::array();
  for (const auto& t : trace_results) traces_json.push_back(TraceJson(t));
  nlohmann::json summary{{"tool", "pecan triage"},
                         {"replayed", options.replay},
                         {"counts",
                          {{"traces", traces.size()},
                           {"damaged", damaged},
                           {"truncated", truncated},
                           {"findings", findings.size()},
                           {"confirmed", confirmed},
                           {"exposed", exposed},
                           {"refuted", refuted},
                           {"replay_errors", replay_errors},
                           {"not_replayed_other_program", other_program},
                           {"no_clip", no_clip}}},
                         {"traces", std::move(traces_json)},
                         {"findings", FindingsJson(findings)}};
  if (options.replay) summary["command"] = options.command;
  WriteFile(output.Claim("summary.json"), summary.dump(2) + "\n");
  WriteFile(output.Claim("summary.sarif"),
            SummarySarif(findings, ResolveSourceRoot(options.source_root)).dump(2) + "\n");
  WriteFile(output.Claim("summary.html"),
            RenderSummaryHtml("pecan triage", trace_results, findings));

  std::cout << "pecan triage: " << Plural(traces.size(), "trace") << " (" << damaged
            << " damaged and skipped, " << truncated << " truncated), "
            << Plural(findings.size(), "distinct finding");
  if (options.replay) {
    std::cout << "; replay: " << confirmed << " confirmed, ";
    if (exposed > 0) std::cout << exposed << " made the program fail otherwise, ";
    std::cout << refuted << " refuted, " << replay_errors << " failed to run";
    if (other_program > 0)
      std::cout << ", " << other_program << " not replayed (recorded from another program)";
  }
  std::cout << "\n";
  for (const auto& t : trace_results)
    if (t.status == "damaged") std::cout << "  damaged: " << t.error << "\n";
  for (size_t i = 0; i < findings.size(); i++) {
    const auto& f = findings[i];
    std::cout << "  " << i + 1 << ". " << f.pattern << " " << f.variant << " in "
              << Plural(f.traces.size(), "trace");
    if (!f.verdict.outcome.empty())
      std::cout << " [" << html_summary_detail::VerdictText(f.verdict) << "]";
    if (f.clip_path.empty()) std::cout << " [no feasible clip]";
    std::cout << "\n";
    for (const auto& event : f.events)
      std::cout << "       " << event.thread_name << " " << event.kind << "  " << event.site.text
                << "\n";
    if (f.verdict.outcome == "error")
      std::cout << "       replay failed: " << f.verdict.reason << "\n";
    if (f.verdict.outcome == "exposed")
      std::cout << "       replay made it fail: " << f.verdict.reason << "\n";
    if (!f.verdict.failure_clip.empty())
      std::cout << "       reproduce: "
                << ReplayCommandLine(f.verdict.failure_clip, options.command) << "\n";
  }
  std::cout << "Summary: " << dir << "/summary.html, summary.json, summary.sarif; clips in " << dir
            << "/clips\n";
  if (damaged == traces.size()) {
    std::cerr << "pecan: error: triage: every trace is damaged; nothing was analyzed\n";
    return 2;
  }
  if (confirmed > 0 || exposed > 0) return 1;
  return replay_errors > 0 ? 2 : 0;
}

// CLI11 would list the hidden program option first in the usage line; say it as users type it.
class TriageHelpFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string name) const override {
    return "Usage: " + name + " [OPTIONS] (TRACE | DIR)... [--replay -- PROGRAM [ARGS...]]\n";
  }
};

std::function<int()> SetupTriage(CLI::App& app) {
  auto options = std::make_shared<TriageOptions>();
  // CLI11 gives every positional to the first positional option that takes it, "--" or not. So
  // the program's option comes first and takes a word only once the subcommand has passed "--"
  // (CLI11 keeps that separator among the subcommand's remaining() words, since this option still
  // expects a value); every earlier word fails its check and falls through to the traces.
  CLI::App* triage = &app;
  auto after_separator = [triage](std::string&) -> std::string {
    std::vector<std::string> seen = triage->remaining();
    if (std::find(seen.begin(), seen.end(), "--") != seen.end()) return "";
    return "not after --";
  };
  app.add_option("program", options->command, "With --replay: the program and its arguments")
      ->expected(1, CLI::detail::expected_max_vector_size)
      ->check(CLI::Validator(after_separator, "", "after --"))
      ->group("");  // documented with the traces and in the footer
  app.validate_positionals();
  app.add_option("traces", options->inputs,
                 "Trace files (.pecan), or directories searched recursively for *.pecan files; "
                 "with --replay, then -- and the program with its arguments, as recorded")
      ->required()
      ->type_name("TRACE|DIR");
  app.add_option(
      "-o,--output", options->output,
      "Directory for summary.html, summary.json, summary.sarif, clips/ and replays/ "
      "(default ./pecan-triage). A previous triage's files there are replaced; files pecan did "
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
      "Examples:\n"
      "  pecan triage runs/ -o triage\n"
      "  pecan triage runs/*.pecan --jobs 4 --replay -- ./app input.txt");
  app.formatter(std::make_shared<TriageHelpFormatter>());
  return [options] { return RunTriage(*options); };
}

}  // namespace

PECAN_COMMAND("triage",
              "Analyze many traces in parallel, merge duplicate findings, write the best clip of "
              "each and an HTML/JSON/SARIF summary; optionally confirm each by replay",
              6, SetupTriage);

}  // namespace pecan::cli
