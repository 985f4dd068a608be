// Turns an analyzer Finding of one trace into the workflow's SummaryFinding: symbolized events,
// and the merge key (pattern | variant | sites as module + offset) that is the same in every
// trace of the same binary, so triage can merge one bug seen in many runs.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "analyzer/event_context.h"
#include "analyzer/finding.h"
#include "analyzer/symbolizer.h"
#include "proto/clip.pb.h"
#include "trace_format/event_kind.h"
#include "trace_format/trace.h"
#include "workflow/clip_picture.h"
#include "workflow/finding_summary.h"

namespace pecan::cli {

// A site that means the same instruction in any run of the same binary: the module's build-id
// (or file name when it has none) and the offset inside it. STD sites are their location.
inline std::string PortableSite(const Trace& trace, SiteId site) {
  if (site >= trace.sites.size()) return "site" + std::to_string(site);
  const SiteInfo& info = trace.sites[site];
  if (info.module == kNoModule) return "loc" + std::to_string(info.offset);
  std::string module = "module" + std::to_string(info.module);
  for (const ModuleInfo& m : trace.modules) {
    if (m.id != info.module) continue;
    if (!m.build_id.empty()) {
      module.clear();
      for (unsigned char c : m.build_id) module += HexString(c, 2);
    } else {
      module = m.path.substr(m.path.find_last_of('/') + 1);
    }
  }
  return module + "+0x" + HexString(info.offset, 1);
}

inline std::string MergeKey(const Trace& trace, const Finding& finding) {
  std::string key = finding.pattern + "|" + finding.variant;
  for (EventIndex e : finding.events) {
    key += "|";
    key += e < trace.size_events() ? PortableSite(trace, trace.site[e]) : "?";
  }
  return key;
}

inline std::string ThreadName(const Trace& trace, ThreadId thread) {
  if (thread < trace.threads.size() && !trace.threads[thread].name.empty())
    return trace.threads[thread].name;
  return "T" + std::to_string(thread);
}

inline SummarySite DescribeSite(const Trace& trace, Symbolizer& symbolizer, EventIndex e) {
  SummarySite site;
  const SourceLocation location = symbolizer.Resolve(trace.site[e]);
  site.function = location.function;
  site.file = location.file;
  site.line = location.line;
  site.text = symbolizer.Describe(trace.site[e]);
  return site;
}

inline SummaryEvent DescribeEvent(const Trace& trace, Symbolizer& symbolizer, EventIndex e,
                                  const EventContexts* contexts = nullptr) {
  SummaryEvent event;
  if (e >= trace.size_events()) {
    event.kind = "?";
    event.site.text = "event " + std::to_string(e) + " (not in the trace)";
    return event;
  }
  event.thread = trace.thread[e];
  event.thread_name = ThreadName(trace, event.thread);
  event.kind = std::string(EventKindName(trace.kind[e]));
  SourceLocation location = symbolizer.Resolve(trace.site[e]);
  event.site.function = location.function;
  event.site.file = location.file;
  event.site.line = location.line;
  event.site.text = symbolizer.Describe(trace.site[e]);
  if (IsAccess(trace.kind[e]) || IsAcquire(trace.kind[e]) || trace.kind[e] == EventKind::kFree) {
    if (auto name = symbolizer.NameOfEventAddress(e)) event.variable = *name;
  }
  if (contexts != nullptr) {
    for (EventIndex call : contexts->CallsAt(e))
      event.stack.push_back(DescribeSite(trace, symbolizer, call));
    if (auto fork = contexts->CreationOf(event.thread))
      event.thread_created_at = DescribeSite(trace, symbolizer, *fork);
  }
  return event;
}

// Every event of `findings`, for EventContexts.
inline std::vector<EventIndex> EventsOf(const std::vector<Finding>& findings) {
  std::vector<EventIndex> events;
  for (const Finding& finding : findings)
    events.insert(events.end(), finding.events.begin(), finding.events.end());
  return events;
}

// The finding as the workflow reports it, with the analyzer's id (analyzer/finding_id.h), so hunt,
// triage and `pecan analyze` name the same finding alike.
// `contexts` (built over every finding's events at once): each event's calls and the site that
// created its thread.
inline SummaryFinding SummarizeFinding(const Trace& trace, Symbolizer& symbolizer,
                                       const Finding& finding,
                                       const EventContexts* contexts = nullptr) {
  SummaryFinding summary;
  summary.key = MergeKey(trace, finding);
  summary.id = finding.id;
  summary.pattern = finding.pattern;
  summary.variant = finding.variant;
  summary.reason = finding.reason;
  summary.observed = finding.observed;
  summary.witnesses = finding.witnesses;
  for (EventIndex e : finding.events)
    summary.events.push_back(DescribeEvent(trace, symbolizer, e, contexts));
  return summary;
}

// Labels the picture's runs around the anomaly with their code, from the trace the clip was
// generated from (each clip step's origin is an event of it).
inline void LabelRunsFromTrace(SwimlanePicture& picture, const proto::Clip& clip,
                               const Trace& trace, Symbolizer& symbolizer) {
  LabelWindowRuns(picture, [&](uint64_t step) -> std::string {
    if (step >= static_cast<uint64_t>(clip.step_origin_size())) return "";
    const uint64_t e = clip.step_origin(static_cast<int>(step));
    if (e >= trace.size_events()) return "";
    const SourceLocation location = symbolizer.Resolve(trace.site[e]);
    SummarySite site{location.function, location.file, location.line,
                     symbolizer.Describe(trace.site[e])};
    site.function.clear();  // the file and line say enough in a box this small
    return ShortSite(site);
  });
}

}  // namespace pecan::cli
