// ReadTraceForAnalysis: KeptAccesses decides from a first pass over the file which accesses the
// analysis can use; the second pass builds the trace of those and every other event. Race
// patterns and deadlocks alone are searched on the file without it (streaming_analysis.h).
#include "analyzer/analysis_trace.h"

#include <optional>

#include "analyzer/access_locations.h"
#include "analyzer/huge_pages.h"
#include "analyzer/report_trace.h"
#include "analyzer/streaming_analysis.h"
#include "trace_format/event_pass.h"
#include "trace_format/trace_reader.h"

namespace pecan {

Trace ReadTraceForAnalysis(const std::string& path, const AnalysisOptions& options,
                           bool show_progress, bool log_warnings) {
  if (options.regions == RegionMode::kFunctions) {
    TraceReader whole(path, log_warnings);
    return ReadTrace(whole, show_progress);
  }
  KeptAccesses kept(LocationFilterFor(options));
  uint64_t events = 0;
  {
    TraceReader reader(path, /*log_warnings=*/false);  // the second pass warns, once
    events = ForEachEvent(reader, show_progress, "reading the trace (1 of 2: its locations)", 0,
                          [&](EventIndex i, const Event& e) { kept.Scan(i, e); });
  }
  kept.Decide();

  TraceReader reader(path, log_warnings);
  Trace trace;
  const uint64_t read =
      ForEachEvent(reader, show_progress, "reading the trace (2 of 2: the events to analyze)",
                   events, [&](EventIndex i, const Event& e) {
                     if (!kept.Keeps(i, e)) return;
                     trace.push_back(e);
                     trace.origin.push_back(i);
                   });
  trace.recorded_events = read;
  trace.meta = reader.meta();  // a footer found late (no trailer) may have added the exit
  trace.threads = reader.threads();
  trace.sites = reader.sites();
  trace.modules = reader.modules();
  trace.names = reader.names();
  // Columns grown by doubling hold up to twice what they need: give the rest back.
  trace.thread.shrink_to_fit();
  trace.kind.shrink_to_fit();
  trace.flags.shrink_to_fit();
  trace.size.shrink_to_fit();
  trace.addr.shrink_to_fit();
  trace.site.shrink_to_fit();
  trace.repeats_before.shrink_to_fit();
  trace.origin.shrink_to_fit();
  return trace;
}

AnalyzedFile AnalyzeFile(const std::string& path, const AnalysisOptions& options,
                         bool show_progress, bool log_warnings) {
  AnalyzedFile out;
  if (Streams(options)) {
    out.result = AnalyzeStreaming(path, options, show_progress, log_warnings);
    // The searches' state is freed, but its pages stay resident in malloc's heap (pcompress
    // 1 MiB: 75 MB) and the report's reading of the trace went past the analysis's peak: they
    // are given back first.
    ReturnFreedHeap();
    std::vector<EventIndex> events;
    for (const Finding& f : out.result.findings) {
      events.insert(events.end(), f.events.begin(), f.events.end());
      events.insert(events.end(), f.overtaken.begin(), f.overtaken.end());
    }
    out.trace = ReadReportTrace(path, events, /*log_warnings=*/false, show_progress);
    ToTraceNumbers(out.trace, &out.result.findings);
    FinishFindings(out.trace, options, &out.result);
    return out;
  }
  out.trace = ReadTraceForAnalysis(path, options, show_progress, log_warnings);
  out.result = Analyze(out.trace, options);
  return out;
}

AnalysisResult AnalyzeTraceFile(const std::string& path, const AnalysisOptions& options,
                                bool show_progress, bool log_warnings) {
  AnalyzedFile analyzed = AnalyzeFile(path, options, show_progress, log_warnings);
  ToRecordedNumbers(analyzed.trace, &analyzed.result.findings);
  return std::move(analyzed.result);
}

void ToRecordedNumbers(const Trace& trace, std::vector<Finding>* findings) {
  for (Finding& f : *findings) {
    for (EventIndex& e : f.events) e = trace.Origin(e);
    for (EventIndex& e : f.overtaken) e = trace.Origin(e);
  }
}

}  // namespace pecan
