// ReadTraceForAnalysis: KeptAccesses decides from a first pass over the file which accesses the
// analysis can use; the second pass builds the trace of those and every other event.
#include "analyzer/analysis_trace.h"

#include <optional>

#include "analyzer/access_locations.h"
#include "trace_format/log.h"
#include "trace_format/progress.h"
#include "trace_format/trace_reader.h"

namespace pecan {

Trace ReadTraceForAnalysis(const std::string& path, const AnalysisOptions& options,
                           bool show_progress) {
  if (options.regions == RegionMode::kFunctions) return ReadTrace(path, show_progress);
  KeptAccesses kept(LocationFilterFor(options));
  uint64_t events = 0;
  {
    ScopedWarningCapture quiet;  // the second pass reads the same file and warns once
    TraceReader reader(path);
    const uint64_t expected = reader.footer_event_count().value_or(0);
    std::optional<ProgressReporter> progress;
    if (show_progress && expected > 0) {
      progress.emplace("reading the trace (1 of 2: its locations)", expected);
      progress->KeepAlive(30);
    }
    EventBatch batch;
    while (reader.Next(batch)) {
      for (size_t j = 0; j < batch.count(); ++j) kept.Scan(batch.first_event + j, batch.event(j));
      events = batch.first_event + batch.count();
      if (progress) progress->Update(events);
    }
  }
  kept.Decide();

  TraceReader reader(path);
  Trace trace;
  trace.meta = reader.meta();
  std::optional<ProgressReporter> progress;
  if (show_progress && events > 0) {
    progress.emplace("reading the trace (2 of 2: the events to analyze)", events);
    progress->KeepAlive(30);
  }
  EventBatch batch;
  bool repeats = false;  // some kept event follows left-out repeats
  uint64_t read = 0;
  while (reader.Next(batch)) {
    for (size_t j = 0; j < batch.count(); ++j) {
      const Event e = batch.event(j);
      if (!kept.Keeps(batch.first_event + j, e)) continue;
      repeats |= e.repeats_before != 0;
      trace.thread.push_back(e.thread);
      trace.kind.push_back(e.kind);
      trace.flags.push_back(e.flags);
      trace.size.push_back(e.size);
      trace.addr.push_back(e.addr);
      trace.site.push_back(e.site);
      trace.repeats_before.push_back(e.repeats_before);
      trace.origin.push_back(batch.first_event + j);
    }
    read = batch.first_event + batch.count();
    if (progress) progress->Update(read);
  }
  if (!repeats) std::vector<uint16_t>().swap(trace.repeats_before);
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
  trace.origin.shrink_to_fit();
  return trace;
}

AnalysisResult AnalyzeTraceFile(const std::string& path, const AnalysisOptions& options,
                                bool show_progress) {
  const Trace trace = ReadTraceForAnalysis(path, options, show_progress);
  AnalysisResult result = Analyze(trace, options);
  for (Finding& f : result.findings) {
    for (EventIndex& e : f.events) e = trace.Origin(e);
    for (EventIndex& e : f.overtaken) e = trace.Origin(e);
  }
  return result;
}

}  // namespace pecan
