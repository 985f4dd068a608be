// `pecan clips TRACE`: one bug-hatching schedule (.clip) per finding, from a fresh analysis or a
// JSON report, each checked by the ScheduleValidator before it is written.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/analysis_trace.h"
#include "analyzer/lockset_table.h"
#include "analyzer/por_index.h"
#include "analyzer/report_json.h"
#include "cli/command.h"
#include "cli/memory_limit.h"
#include "schedgen/clip_builder.h"
#include "schedgen/recorded_run.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/file_kind.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"

namespace pecan::cli {
namespace {

struct ClipsOptions {
  std::string trace_path;
  std::string report_path;
  std::vector<std::string> only;
  std::string output_dir = "clips";
  std::string patterns = "all";
  std::string regions = "locks";
  bool recorded = false;
  uint64_t recorded_steps = 0;  // 0: all of them
};

// The whole recorded run as one clip without anomaly events: replaying it re-runs the program
// in the recorded interleaving, event by event (for debugging the recorded run itself). Checked
// like every clip: a recorded order the validator refuses (a damaged or inconsistent trace)
// gets no clip.
int WriteRecordedRunClip(const ClipsOptions& options, const Trace& trace,
                         const std::string& trace_hash) {
  const PorIndex por(trace);
  const ClipPlan plan = RecordedRunPlan(trace, por, options.recorded_steps);
  if (!plan.ok) throw PecanError(options.trace_path + ": " + plan.reason);
  Finding run;
  run.id = "recorded";
  run.pattern = "recorded";
  std::error_code error;
  std::filesystem::create_directories(options.output_dir, error);
  if (error) throw PecanError(options.output_dir + ": cannot create: " + error.message());
  const std::string path = (std::filesystem::path(options.output_dir) / "recorded.clip").string();
  WriteClipFile(path, ClipFromPlan(trace, LocksetTable(trace), run, plan, trace_hash));
  std::cout << "recorded  " << plan.steps.size() << " steps  ok  " << path << "\n";
  return 0;
}

Trace LoadTraceFile(const std::string& path) {
  switch (DetectTraceFileKind(path)) {
    case TraceFileKind::kPecan:
      return ReadTrace(path, /*show_progress=*/true);
    case TraceFileKind::kStd:
      return ImportStdFile(path);
    case TraceFileKind::kOther:
      break;
  }
  throw PecanError(path + ": not a pecan trace (.pecan) or STD text trace");
}

AnalysisOptions ClipsAnalysisOptions(const ClipsOptions& options) {
  AnalysisOptions analysis;
  analysis.patterns = options.patterns;
  analysis.regions = options.regions == "functions" ? RegionMode::kFunctions : RegionMode::kLocks;
  analysis.progress = true;
  return analysis;
}

// `analyzed`: the findings of a .pecan file, analyzed before the whole trace was read.
std::vector<Finding> FindingsFor(const ClipsOptions& options, const Trace& trace,
                                 const std::string& trace_hash,
                                 std::optional<std::vector<Finding>> analyzed) {
  if (analyzed) return std::move(*analyzed);
  if (options.report_path.empty()) return Analyze(trace, ClipsAnalysisOptions(options)).findings;
  LoadedReport report = LoadJsonReport(options.report_path);
  if (!report.trace_hash.empty() && report.trace_hash != trace_hash) {
    throw PecanError(options.report_path + ": the report was made from another trace (hash " +
                     report.trace_hash + "; " + options.trace_path + " has " + trace_hash + ")");
  }
  return std::move(report.findings);
}

int RunClips(const ClipsOptions& options) {
  // A fresh analysis of a .pecan file reads the events it can use first; then the whole trace
  // is read for the clips: the two are never in memory together (as in `pecan hunt`).
  std::optional<std::vector<Finding>> analyzed;
  if (!options.recorded && options.report_path.empty() &&
      DetectTraceFileKind(options.trace_path) == TraceFileKind::kPecan)
    analyzed = AnalyzeTraceFile(options.trace_path, ClipsAnalysisOptions(options),
                                /*show_progress=*/true, /*log_warnings=*/false)
                   .findings;
  const Trace trace = LoadTraceFile(options.trace_path);  // warns of a truncated file
  const std::string trace_hash = TraceContentHash(options.trace_path);
  if (options.recorded) return WriteRecordedRunClip(options, trace, trace_hash);
  std::vector<Finding> findings = FindingsFor(options, trace, trace_hash, std::move(analyzed));

  if (!options.only.empty()) {
    const std::set<std::string> wanted(options.only.begin(), options.only.end());
    std::set<std::string> seen;
    std::vector<Finding> kept;
    for (Finding& f : findings) {
      if (wanted.count(f.id)) {
        seen.insert(f.id);
        kept.push_back(std::move(f));
      }
    }
    for (const std::string& id : wanted) {
      if (!seen.count(id)) throw PecanError("--only " + id + ": no finding with this id");
    }
    findings = std::move(kept);
  }
  for (const Finding& f : findings) {
    for (EventIndex e : f.events) {
      if (e >= trace.size_events()) {
        throw PecanError(f.id + ": names event " + std::to_string(e) + ", but the trace has " +
                         std::to_string(trace.size_events()) + " events (wrong trace?)");
      }
    }
  }

  std::error_code error;
  std::filesystem::create_directories(options.output_dir, error);
  if (error) throw PecanError(options.output_dir + ": cannot create: " + error.message());

  const PorIndex por(trace);
  const LocksetTable locksets(trace);
  const ScheduleGenerator generator(trace, por);
  int written = 0;
  int infeasible = 0;
  for (const Finding& f : findings) {
    const ClipPlan plan = generator.Generate(f);
    std::cout << f.id << "  " << f.pattern << "  ";
    if (!plan.ok) {
      ++infeasible;
      std::cout << "-  no feasible clip: " << plan.reason << "\n";
      continue;
    }
    const std::string path =
        (std::filesystem::path(options.output_dir) / (f.id + ".clip")).string();
    WriteClipFile(path, ClipFromPlan(trace, locksets, f, plan, trace_hash));
    ++written;
    std::cout << plan.steps.size() << " steps  ok  " << path << "\n";
  }
  std::cout.flush();
  std::cerr << "pecan: " << written << " clip" << (written == 1 ? "" : "s") << " written to "
            << options.output_dir;
  if (infeasible) std::cerr << "; " << infeasible << " finding(s) without a feasible clip";
  std::cerr << "\n";
  return 0;
}

std::function<int()> SetupClips(CLI::App& app) {
  auto options = std::make_shared<ClipsOptions>();
  app.add_option("trace", options->trace_path,
                 "The trace the findings come from: a .pecan file or STD text")
      ->required()
      ->check(CLI::ExistingFile)
      ->type_name("TRACE");
  app.add_option("--report", options->report_path,
                 "Take the findings from this JSON report (`pecan analyze TRACE -f json -o FILE`) "
                 "instead of analyzing the trace again; it must come from the same trace")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  app.add_option("--only", options->only, "Make clips only for these finding ids")
      ->type_name("ID...");
  app.add_option("-o,--output", options->output_dir,
                 "Directory for the clips, one <finding-id>.clip each (default: ./clips)")
      ->type_name("DIR");
  app.add_option("-p,--patterns", options->patterns,
                 "Without --report: which anomalies to look for, as in `pecan analyze`")
      ->type_name("LIST|FILE");
  app.add_option("--regions", options->regions,
                 "Without --report: atomic regions, as in `pecan analyze` (locks or functions)")
      ->check(CLI::IsMember({"locks", "functions"}));
  app.add_flag("--recorded", options->recorded,
               "Instead of one clip per finding, write recorded.clip: the whole recorded run, "
               "event by event, to re-run the program exactly as recorded");
  app.add_option("--steps", options->recorded_steps,
                 "With --recorded: only the first N events of the run (the replay goes on "
                 "after them under its --seed)")
      ->check(CLI::PositiveNumber);
  AddMaxMemoryOption(app);
  app.footer(
      "For every finding, writes the schedule that drives the program into the anomaly: the\n"
      "recorded order with as few events moved as possible, cut right after the anomaly.\n"
      "Each schedule is checked before it is written (every thread's events in program order,\n"
      "every partial-order edge kept, no lock held by two threads, the anomaly's events in\n"
      "order); a finding no feasible schedule can show gets no clip and the reason instead.\n"
      "Prints one line per finding: id, pattern, steps and 'ok' with the clip's path, or\n"
      "'no feasible clip: <reason>'. Exit status 0 when the clips were made, whatever the\n"
      "findings; 2 for a bad trace, report or option; 3 out of memory (--max-memory).\n\n"
      "Next: `pecan replay CLIP -- PROGRAM ARGS` runs a clip; `pecan dump CLIP` prints one\n"
      "(--format text, std or json).\n\n"
      "Examples:\n"
      "  pecan clips pecan-app.pecan\n"
      "  pecan clips run.std --only race-1a2b3c4d -o /tmp/clips\n"
      "  pecan analyze app.pecan -f json -o app.json && pecan clips app.pecan --report app.json");
  return [options] { return RunClips(*options); };
}

}  // namespace

PECAN_COMMAND("clips",
              "Write a bug-hatching schedule (.clip) for each finding of a trace, checked for "
              "feasibility, for `pecan replay`",
              30, SetupClips);

}  // namespace pecan::cli
