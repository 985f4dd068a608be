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

namespace pecan::workflow {

// A site that means the same instruction in any run of the same binary: the module's build-id
// (or file name when it has none) and the offset inside it. STD sites are their location.
std::string PortableSite(const Trace& trace, SiteId site);

std::string MergeKey(const Trace& trace, const Finding& finding);

std::string ThreadName(const Trace& trace, ThreadId thread);

SummarySite DescribeSite(const Trace& trace, Symbolizer& symbolizer, EventIndex e);

SummaryEvent DescribeEvent(const Trace& trace, Symbolizer& symbolizer, EventIndex e,
                           const EventContexts* contexts = nullptr);

// Every event of `findings`, for EventContexts.
std::vector<EventIndex> EventsOf(const std::vector<Finding>& findings);

// The finding as the workflow reports it, with the analyzer's id (analyzer/finding_id.h), so hunt,
// triage and `pecan analyze` name the same finding alike.
// `contexts` (built over every finding's events at once): each event's calls and the site that
// created its thread.
SummaryFinding SummarizeFinding(const Trace& trace, Symbolizer& symbolizer, const Finding& finding,
                                const EventContexts* contexts = nullptr);

// Labels the picture's runs around the anomaly with their code, from the trace the clip was
// generated from (each clip step's origin is an event of it).
void LabelRunsFromTrace(SwimlanePicture& picture, const proto::Clip& clip, const Trace& trace,
                        Symbolizer& symbolizer);

}  // namespace pecan::workflow
