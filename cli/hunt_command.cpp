// `pecan hunt -- PROGRAM [ARGS...]`: the whole chain in one command. Records one run, predicts
// the anomalies, writes a clip for each, replays every clip (N at a time) and reports what the
// replays confirmed, with the command that reproduces each. Exit 1 if any were confirmed.
#include <functional>
#include <memory>
#include <string>

#include "cli/command.h"
#include "cli/memory_limit.h"
#include "workflow/hunt.h"
#include "workflow/suppressions_file.h"

namespace pecan::cli {

using workflow::HuntOptions;
using workflow::kSuppressionsHelp;
using workflow::RunHunt;

namespace {

std::function<int()> SetupHunt(CLI::App& app) {
  auto options = std::make_shared<HuntOptions>();
  app.add_option(
      "-o,--output", options->output,
      "Directory for everything the hunt produces: trace.pecan, report.json, report.sarif, "
      "clips/, verdicts.json (default ./pecan-out). A previous hunt's files there are replaced; "
      "files pecan did not write are never touched (it stops if one is in the way)");
  app.add_option("-j,--jobs", options->jobs, "Replays to run at the same time (default 2)")
      ->check(CLI::Range(size_t{1}, size_t{256}));
  app.add_option("--timeout", options->timeout,
                 "Time bound of each replay in seconds (default 30); a replay that runs longer is "
                 "counted as refuted")
      ->check(CLI::PositiveNumber);
  app.add_option("--record-timeout", options->record_timeout,
                 "Seconds the recorded run may take (default 60; 0: no bound). A run that does "
                 "not end is stopped, reported as an observed deadlock or hang, and its recorded "
                 "clip replayed to show where its threads wait")
      ->check(CLI::NonNegativeNumber)
      ->type_name("SEC");
  app.add_option("--expect-exit", options->expect_exit,
                 "The program's normal exit status (default 0); any other is a failure")
      ->check(CLI::Range(0, 255));
  app.add_option("--before-each", options->before_each,
                 "A shell command run before the recording and before each replay, so every run "
                 "starts from the same state (e.g. 'rm -f out.txt'); replays then run one at a "
                 "time")
      ->type_name("CMD");
  app.add_option(
         "--regions", options->regions,
         "Atomic regions for atomicity and atomic-set patterns: locks (outermost critical "
         "sections, default) or functions (also each function call, for check-then-act bugs "
         "whose steps each take their own lock)")
      ->check(CLI::IsMember({"locks", "functions"}));
  app.add_option("--patterns", options->patterns,
                 "Which anomalies to look for: comma-separated race, atomicity, asv, deadlock, all "
                 "(default), or the path of a pattern file");
  app.add_option("--suppressions", options->suppressions, kSuppressionsHelp)->type_name("FILE");
  app.add_option("--budget", options->budget,
                 "Seconds from the hunt's start after which no replay or exploring run starts "
                 "(default 60). Sound predictions (races WCP leaves unordered) are replayed "
                 "first; when no replay made the program fail, the time left goes to "
                 "continuations of anomalies that hatched without a failure, critical-section "
                 "flips, then pecan fuzz runs (RaceFuzzer on the predicted races, PCT, random), "
                 "until one fails")
      ->check(CLI::PositiveNumber)
      ->type_name("SEC");
  app.add_option("--max-per-site", options->max_per_site,
                 "At most this many predictions of one pattern share a site (default 8; 0: no "
                 "bound), so a hot loop cannot fill the replays; the rest are counted as capped")
      ->type_name("N");
  app.add_flag("!--no-explore", options->explore,
               "Only predict and replay: no exploring after the predictions");
  app.add_option("--source-root", options->source_root,
                 "report.sarif names source files below this directory relative to it (uriBaseId "
                 "SRCROOT), as code scanning wants; default: the working directory")
      ->check(CLI::ExistingDirectory);
  app.add_option("command", options->command,
                 "The program (built with pecan-cc / pecan-c++ / pecan_instrument) and its "
                 "arguments, after --")
      ->required()
      ->type_name("PROGRAM [ARGS...]");
  app.positionals_at_end();
  AddMaxMemoryOption(app);
  app.footer(
      "Runs record, analyze, clips and replay in one go; when no replay made the program fail,\n"
      "the rest of --budget explores: anomalies that hatched are replayed with other tails,\n"
      "consecutive critical sections that touch the same data are flipped, then pecan fuzz\n"
      "(RaceFuzzer on the predicted races, PCT, random) runs until one fails.\n"
      "Exit status: 1 when at least one finding was\n"
      "confirmed by replay, a replay made the program fail or exploring found a failure, 0\n"
      "when none did, 2 on errors, 3 out of memory (--max-memory). Example:\n"
      "  pecan-cc -g -pthread app.c -o app && pecan hunt -o out -- ./app input.txt\n"
      "Every confirmed finding comes with the `pecan replay` command that reproduces it; when\n"
      "the program failed, with the failure clip (failures/) that fails the same way every time.");
  return [options] { return RunHunt(*options); };
}

}  // namespace

PECAN_COMMAND("hunt",
              "Record a run, predict its concurrency bugs, and confirm each by replaying a "
              "bug-hatching schedule: the whole chain in one command",
              5, SetupHunt);

}  // namespace pecan::cli
