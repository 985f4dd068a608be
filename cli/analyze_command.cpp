// `pecan analyze TRACE`: predicts the access anomalies of a recorded (.pecan) or imported (.std)
// trace and writes the report as text, JSON or SARIF. Findings are not errors: exit status 0.
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "analyzer/analysis.h"
#include "analyzer/analysis_trace.h"
#include "analyzer/ptg.h"
#include "analyzer/report_events.h"
#include "analyzer/report_json.h"
#include "analyzer/report_sarif.h"
#include "analyzer/report_text.h"
#include "analyzer/symbolizer.h"
#include "cli/command.h"
#include "cli/memory_limit.h"
#include "trace_format/error.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"
#include "workflow/suppressions_file.h"

namespace pecan::cli {

using workflow::kSuppressionsHelp;
using workflow::LoadSuppressions;

namespace {

struct AnalyzeOptions {
  std::string trace_path;
  std::string patterns = "all";
  std::string regions = "locks";
  std::string format = "text";
  std::string output;
  std::string ptg_dot;
  std::string suppressions;
  uint64_t max_pattern_work = kDefaultMaxPatternWork;
  unsigned threads = 0;
};

constexpr char kPecanMagic[] = "PECANTRC";

// A .pecan file is recognized by its magic (whatever its name); a file named *.pecan without
// it goes to the .pecan reader too, for its precise error; anything else is read as STD text.
bool IsPecanFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PecanError(path + ": cannot open: " + std::strerror(errno));
  char magic[sizeof kPecanMagic - 1] = {};
  in.read(magic, sizeof magic);
  return (in.gcount() == sizeof magic && std::memcmp(magic, kPecanMagic, sizeof magic) == 0) ||
         path.ends_with(".pecan");
}

// A .pecan trace is analyzed without holding all its events (analyzer/analysis_trace.h): the
// accesses no selected pattern can use are left out, and the built-in patterns (under lock regions)
// are searched on the file. The PTG picture needs the analysis's own trace, so --ptg reads it.
AnalyzedFile LoadAndAnalyze(const std::string& path, const AnalysisOptions& analysis, bool ptg) {
  if (!IsPecanFile(path)) {
    AnalyzedFile out;
    out.trace = ImportStdFile(path);
    out.result = Analyze(out.trace, analysis);
    return out;
  }
  if (!ptg) return AnalyzeFile(path, analysis, /*show_progress=*/true);
  AnalyzedFile out;
  out.trace = ReadTraceForAnalysis(path, analysis, /*show_progress=*/true);
  out.result = Analyze(out.trace, analysis);
  return out;
}

void WriteReport(std::ostream& out, const AnalyzeOptions& options, const Trace& trace,
                 const AnalysisResult& result) {
  Symbolizer symbolizer(trace);
  ReportOrigin origin{options.trace_path, TraceContentHash(options.trace_path)};
  if (options.format == "json")
    WriteJsonReport(out, trace, result, symbolizer, origin);
  else if (options.format == "sarif")
    WriteSarifReport(out, trace, result, symbolizer, origin);
  else
    WriteTextReport(out, trace, result, symbolizer);
}

int RunAnalyze(const AnalyzeOptions& options) {
  AnalysisOptions analysis;
  analysis.patterns = options.patterns;
  analysis.regions = options.regions == "functions" ? RegionMode::kFunctions : RegionMode::kLocks;
  analysis.progress = true;  // the progress reporter stays silent unless stderr is a terminal
  analysis.suppressions = LoadSuppressions(options.suppressions, "analyze");
  analysis.max_pattern_work = options.max_pattern_work;
  analysis.threads = options.threads;
  LocationFilterFor(analysis);  // a bad pattern spec stops here, before the trace is read
  AnalyzedFile analyzed = LoadAndAnalyze(options.trace_path, analysis, !options.ptg_dot.empty());
  const Trace& trace = analyzed.trace;
  const AnalysisResult& result = analyzed.result;
  if (!options.ptg_dot.empty()) {
    std::ofstream dot(options.ptg_dot, std::ios::binary | std::ios::trunc);
    if (!dot) throw PecanError(options.ptg_dot + ": cannot write: " + std::strerror(errno));
    Symbolizer symbolizer(trace);
    WritePtgDot(dot, trace, result.findings, symbolizer);
    dot.flush();
    if (!dot) throw PecanError(options.ptg_dot + ": write failed");
  }

  std::string summary = SummaryLine(Summarize(result));
  if (options.output.empty() || options.output == "-") {
    WriteReport(std::cout, options, trace, result);
    std::cout.flush();
    if (!std::cout) throw PecanError("<stdout>: write failed");
    // The text report ends with the summary already; JSON/SARIF stdout must stay pure JSON.
    if (options.format != "text") std::cerr << "pecan: " << summary << "\n";
    return 0;
  }
  {
    std::ofstream out(options.output, std::ios::binary | std::ios::trunc);
    if (!out) throw PecanError(options.output + ": cannot write: " + std::strerror(errno));
    WriteReport(out, options, trace, result);
    out.flush();
    if (!out) throw PecanError(options.output + ": write failed");
  }
  std::cerr << "pecan: " << summary << "; report written to " << options.output << "\n";
  return 0;
}

std::function<int()> SetupAnalyze(CLI::App& app) {
  auto options = std::make_shared<AnalyzeOptions>();
  app.add_option("trace", options->trace_path,
                 "The trace to analyze: a .pecan file from `pecan record`, or STD text (.std)")
      ->required()
      ->type_name("TRACE");
  app.add_option("--suppressions", options->suppressions, kSuppressionsHelp)->type_name("FILE");
  app.add_option("-p,--patterns", options->patterns,
                 "Which anomalies to look for: a comma-separated list of race, atomicity, asv, "
                 "deadlock (lock-order cycles), "
                 "all (default: all), and/or the path of a pattern file of your own "
                 "(see PATTERNS.md, in share/doc/pecan of an installed pecan and in analyzer/ "
                 "of the source tree). The built-in families (under the default --regions locks) "
                 "are searched on a .pecan file without holding its events, in memory bounded by "
                 "the program's state; a pattern file of your own, or --regions functions, "
                 "holds the trace's events")
      ->type_name("LIST|FILE");
  app.add_option("--regions", options->regions,
                 "What counts as an atomic region: locks (outermost critical sections and "
                 "annotated regions, default) or functions (also every function invocation; "
                 "needs function events in the trace)")
      ->check(CLI::IsMember({"locks", "functions"}));
  app.add_option("--max-pattern-work", options->max_pattern_work,
                 "Stop the search of a pattern of your own (a --patterns file) after N steps "
                 "(candidate events and classes tried) and report the findings found so far, "
                 "with a note that they may be incomplete; 0 = no bound (default: " +
                     std::to_string(kDefaultMaxPatternWork) +
                     ", seconds of search). The built-in race, atomicity and asv searches are "
                     "never stopped")
      // Without the check, "-5" would wrap around to a bound of 2^64 - 5.
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.find('-') == std::string::npos ? std::string()
                                                        : "expected 0 or more, not " + value;
          },
          ""))
      ->type_name("N");
  app.add_option("-f,--format", options->format,
                 "Report format: text (compiler-style warnings, default), json (for tools and "
                 "`pecan clips --report`) or sarif (SARIF 2.1.0 for code-scanning tools)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  app.add_option("-o,--output", options->output,
                 "Write the report to FILE instead of standard output")
      ->type_name("FILE");
  app.add_option("--ptg-dot", options->ptg_dot,
                 "Also write the partial/temporal order graph (PTG) around each finding to FILE "
                 "as Graphviz DOT: the findings' events (filled, numbered F1, F2, ...) and their "
                 "threads' neighbouring events; POR edges solid, TOR edges dashed. View it with "
                 "`dot -Tsvg FILE -o ptg.svg`")
      ->type_name("FILE");
  app.add_option("-j,--threads", options->threads,
                 "Threads for the analysis. A .pecan file's race search is split over them by "
                 "location, and with two or more the trace is read (and its accesses keyed or "
                 "located) on a thread of its own; the findings are the same whatever the "
                 "number. 0, the default: one per core pecan may run on (at most 4), the race "
                 "search split only where the trace has buffers whose search is worth it; 1: "
                 "one thread, no split")
      ->check(CLI::Range(0u, 64u))
      ->type_name("N");
  AddMaxMemoryOption(app);
  app.footer(
      "Each finding is an access anomaly that the recorded run, or another interleaving of\n"
      "it, shows: 'observed' ones happened in the recorded order, 'predicted' ones need a\n"
      "different schedule. None is confirmed yet: `pecan clips` writes a schedule for each and\n"
      "`pecan replay` runs it (or use `pecan hunt` for the whole chain).\n"
      "The last line is a summary (on stderr for json/sarif or with -o). Exit status: 0 when\n"
      "the analysis ran, whatever it found; 2 for a bad trace or bad options; 3 when it ran\n"
      "out of memory (--max-memory).\n\n"
      "Examples:\n"
      "  pecan analyze pecan-app.pecan\n"
      "  pecan analyze run.std --patterns race,atomicity\n"
      "  pecan analyze pecan-app.pecan --format sarif -o app.sarif\n"
      "  pecan analyze run.std --ptg-dot run.dot && dot -Tsvg run.dot -o run.svg");
  return [options] { return RunAnalyze(*options); };
}

}  // namespace

PECAN_COMMAND("analyze",
              "Predict the data races, atomicity violations and atomic-set serializability "
              "violations a trace's run (or another interleaving of it) shows, and report them",
              20, SetupAnalyze);

}  // namespace pecan::cli
