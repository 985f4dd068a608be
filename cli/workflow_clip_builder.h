// Builds the pecan.proto.Clip for one finding from the schedule generator's plan, following
// proto/clip.proto field by field, and the swimlane picture of the same schedule.
#pragma once

#include <string>
#include <vector>

#include "analyzer/finding.h"
#include "cli/workflow_finding_view.h"
#include "cli/workflow_swimlane_svg.h"
#include "proto/clip.pb.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/proto_conversion.h"
#include "trace_format/trace.h"

namespace pecan::cli {

inline proto::Finding FindingToProto(const Trace& trace, const Finding& finding) {
  proto::Finding out;
  out.set_id(finding.id);
  out.set_pattern(finding.pattern);
  out.set_variant(finding.variant);
  out.set_observed(finding.observed);
  for (EventIndex e : finding.events) {
    proto::FindingEvent* event = out.add_events();
    event->set_index(e);
    if (e >= trace.size_events()) continue;
    event->set_thread(trace.thread[e]);
    event->set_kind(static_cast<proto::EventKind>(trace.kind[e]));
    event->set_address(trace.addr[e]);
    event->set_size(trace.size[e]);
    event->set_site(trace.site[e]);
  }
  for (EventIndex x : finding.overtaken) out.add_overtaken(x);
  out.set_reason(finding.reason);
  out.set_witnesses(finding.witnesses);
  return out;
}

inline proto::Clip BuildClip(const Trace& trace, const std::string& trace_hash,
                             const Finding& finding, const ClipPlan& plan) {
  proto::Clip clip;
  clip.set_trace_hash(trace_hash);
  clip.set_program(trace.meta.program);
  for (const auto& arg : trace.meta.args) clip.add_args(arg);
  for (const auto& module : trace.modules) *clip.add_modules() = ModuleToProto(module);
  *clip.mutable_finding() = FindingToProto(trace, finding);
  for (ThreadId t = 0; t < trace.threads.size(); t++)
    *clip.add_threads() = ThreadToProto(t, trace.threads[t]);
  std::vector<bool> site_used(trace.sites.size(), false);
  for (EventIndex e : plan.steps) {
    const ThreadId thread = trace.thread[e];
    if (clip.run_thread_size() > 0 && clip.run_thread(clip.run_thread_size() - 1) == thread) {
      clip.set_run_length(clip.run_length_size() - 1,
                          clip.run_length(clip.run_length_size() - 1) + 1);
    } else {
      clip.add_run_thread(thread);
      clip.add_run_length(1);
    }
    clip.add_step_kind(static_cast<uint32_t>(trace.kind[e]));
    clip.add_step_site(trace.site[e]);
    clip.add_step_origin(e);
    if (trace.site[e] < site_used.size()) site_used[trace.site[e]] = true;
  }
  for (SiteId s = 0; s < trace.sites.size(); s++)
    if (site_used[s]) *clip.add_sites() = SiteToProto(s, trace.sites[s]);
  for (uint64_t step : plan.moved_steps) clip.add_moved_steps(step);
  for (uint64_t step : plan.anomaly_steps) clip.add_anomaly_steps(step);
  clip.set_generator(plan.generator);
  proto::RecorderSettings* settings = clip.mutable_settings();
  settings->set_chunk_events(trace.meta.settings.chunk_events);
  settings->set_zstd_level(trace.meta.settings.zstd_level);
  settings->set_func_events(trace.meta.settings.func_events);
  settings->set_stack_accesses(trace.meta.settings.stack_accesses);
  settings->set_fork_policy(trace.meta.settings.fork_policy);
  return clip;
}

// The swimlane picture of a clip, its anomaly steps labelled with their events.
inline SwimlanePicture PictureOfClip(const proto::Clip& clip,
                                     const std::vector<SummaryEvent>& anomaly_events) {
  SwimlanePicture picture;
  for (const auto& thread : clip.threads()) {
    if (picture.lane_names.size() <= thread.id()) picture.lane_names.resize(thread.id() + 1);
    picture.lane_names[thread.id()] =
        thread.name().empty() ? "T" + std::to_string(thread.id()) : thread.name();
  }
  picture.run_thread.assign(clip.run_thread().begin(), clip.run_thread().end());
  picture.run_length.assign(clip.run_length().begin(), clip.run_length().end());
  picture.moved_steps.assign(clip.moved_steps().begin(), clip.moved_steps().end());
  picture.anomaly_steps.assign(clip.anomaly_steps().begin(), clip.anomaly_steps().end());
  for (const auto& event : anomaly_events)
    picture.anomaly_labels.push_back(event.thread_name + " " + event.kind + " " + event.site.text);
  return picture;
}

}  // namespace pecan::cli
