#include "workflow/trace_triage.h"

#include <new>

#include "analyzer/analysis_trace.h"
#include "analyzer/report_events.h"
#include "trace_format/log.h"

namespace pecan::workflow {

Trace ReadTraceKeepingWarnings(const std::string& path, std::vector<std::string>& warnings,
                               bool& complete) {
  TraceReader reader(path);
  Trace trace = ReadTrace(reader);
  warnings = reader.warnings();
  complete = reader.complete();
  return trace;
}

TriagedTrace TriageTrace(const std::string& path, const AnalysisOptions& options,
                         const std::string& clip_dir) {
  TriagedTrace result;
  result.trace.path = path;
  auto start = std::chrono::steady_clock::now();
  try {
    // The analysis first, on the events it can use; then the whole trace for the clips, so the
    // two are never in memory together (the second read reports the file's warnings).
    AnalysisResult analysis =
        AnalyzeTraceFile(path, options, /*show_progress=*/false, /*log_warnings=*/false);
    bool complete = false;
    Trace trace = ReadTraceKeepingWarnings(path, result.trace.warnings, complete);
    result.trace.status = complete ? "ok" : "truncated";
    result.trace.events = trace.size_events();
    for (const std::string& notice : StoppedPatternNotices(analysis.stats)) {
      LogWarning(path + ": " + notice);  // shown like the reader's warnings
      result.trace.warnings.push_back(notice);
    }
    result.trace.findings = analysis.findings.size();
    Symbolizer symbolizer(trace);
    PorIndex por(trace);
    ScheduleGenerator generator(trace, por);
    const LocksetTable locksets(trace);
    const std::string hash = analysis.findings.empty() ? "" : TraceContentHash(path);
    const EventContexts contexts(trace, EventsOf(analysis.findings));
    for (const Finding& finding : analysis.findings) {
      TriagedFinding triaged;
      triaged.summary = SummarizeFinding(trace, symbolizer, finding, &contexts);
      triaged.summary.traces = {path};
      ClipPlan plan = generator.Generate(finding);
      if (plan.ok) {
        const proto::Clip clip = ClipFromPlan(trace, locksets, finding, plan, hash);
        triaged.summary.clip_trace = path;
        triaged.summary.clip_steps = plan.steps.size();
        triaged.summary.picture = PictureOfClip(clip, triaged.summary.events);
        LabelRunsFromTrace(triaged.summary.picture, clip, trace, symbolizer);
        triaged.clip = StoredClip::Spill(clip, clip_dir);  // not held in memory
      } else {
        triaged.summary.clip_error = plan.reason;
      }
      result.findings.push_back(std::move(triaged));
    }
  } catch (const std::bad_alloc& e) {
    // Exhaustion is not damage: the trace may be fine and only too big for the bound.
    result.trace.status = "out of memory";
    result.trace.error = path + ": " + e.what();
    result.findings.clear();
  } catch (const PecanError& e) {  // names the file and the byte offset
    result.trace.status = "damaged";
    result.trace.error = e.what();
    result.findings.clear();
  } catch (const std::exception& e) {  // whatever else a damaged file provokes skips it too
    result.trace.status = "damaged";
    result.trace.error = path + ": " + e.what();
    result.findings.clear();
  }
  result.trace.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace pecan::workflow
