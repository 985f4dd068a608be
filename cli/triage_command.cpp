// `pecan triage (TRACE... | DIR)`: analyzes many traces in parallel (N at a time, so memory stays
// bounded), merges their findings, writes the best clip of each distinct finding, optionally
// confirms them by replay, and summarizes in summary.json, summary.sarif and summary.html.
// Past one machine: `--shard K/N` triages the K-th part of the traces, `pecan triage merge`
// joins the parts into what one triage writes, and `pecan triage replay --shard K/N` splits the
// replays of a merged result.
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/memory_limit.h"
#include "workflow/suppressions_file.h"
#include "workflow/triage.h"

namespace pecan::cli {

using workflow::kSuppressionsHelp;
using workflow::RunTriage;
using workflow::RunTriageMerge;
using workflow::RunTriageReplay;
using workflow::TriageMergeOptions;
using workflow::TriageOptions;
using workflow::TriageReplayOptions;

namespace {

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
  AddMaxMemoryOption(app);
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
      "every trace damaged, or a replay that could not run); 3 when no trace could be analyzed\n"
      "within --max-memory. A trace that runs out of memory beside others (-j) is analyzed\n"
      "again alone; if it still does not fit it is reported as 'out of memory' and skipped.\n"
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

  auto merge = std::make_shared<TriageMergeOptions>();
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

  auto replay = std::make_shared<TriageReplayOptions>();
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
    if (merge_app->parsed()) return RunTriageMerge(*merge);
    if (replay_app->parsed()) return RunTriageReplay(*replay);
    return RunTriage(*options);
  };
}

}  // namespace

PECAN_COMMAND("triage",
              "Analyze many traces in parallel, merge duplicate findings, write the best clip of "
              "each and an HTML/JSON/SARIF summary; optionally confirm each by replay",
              6, SetupTriage);

}  // namespace pecan::cli
