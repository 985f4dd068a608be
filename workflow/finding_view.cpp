#include "workflow/finding_view.h"

namespace pecan::workflow {

std::string PortableSite(const Trace& trace, SiteId site) {
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

std::string MergeKey(const Trace& trace, const Finding& finding) {
  std::string key = finding.pattern + "|" + finding.variant;
  for (EventIndex e : finding.events) {
    key += "|";
    key += e < trace.size_events() ? PortableSite(trace, trace.site[e]) : "?";
  }
  return key;
}

std::string ThreadName(const Trace& trace, ThreadId thread) {
  if (thread < trace.threads.size() && !trace.threads[thread].name.empty())
    return trace.threads[thread].name;
  return "T" + std::to_string(thread);
}

SummarySite DescribeSite(const Trace& trace, Symbolizer& symbolizer, EventIndex e) {
  SummarySite site;
  const SourceLocation location = symbolizer.Resolve(trace.site[e]);
  site.function = location.function;
  site.file = location.file;
  site.line = location.line;
  site.text = symbolizer.Describe(trace.site[e]);
  return site;
}

SummaryEvent DescribeEvent(const Trace& trace, Symbolizer& symbolizer, EventIndex e,
                           const EventContexts* contexts) {
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

std::vector<EventIndex> EventsOf(const std::vector<Finding>& findings) {
  std::vector<EventIndex> events;
  for (const Finding& finding : findings)
    events.insert(events.end(), finding.events.begin(), finding.events.end());
  return events;
}

SummaryFinding SummarizeFinding(const Trace& trace, Symbolizer& symbolizer, const Finding& finding,
                                const EventContexts* contexts) {
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

void LabelRunsFromTrace(SwimlanePicture& picture, const proto::Clip& clip, const Trace& trace,
                        Symbolizer& symbolizer) {
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

}  // namespace pecan::workflow
