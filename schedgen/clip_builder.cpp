// ClipFromPlan: the schedule as runs of (thread, count) plus one kind/site/origin per step, and
// everything the replayer needs to recognize the program, its threads and the anomaly.
#include "schedgen/clip_builder.h"

#include <vector>

#include "schedgen/step_repeats.h"
#include "trace_format/proto_conversion.h"
#include "trace_format/version.h"

namespace pecan {

proto::Finding FindingToMessage(const Trace& trace, const LocksetTable& locksets,
                                const Finding& finding) {
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
    for (const HeldLock& lock : locksets.Locks(locksets.Of(e))) event->add_locks_held(lock.lock);
  }
  for (EventIndex x : finding.overtaken) out.add_overtaken(x);
  out.set_reason(finding.reason);
  out.set_witnesses(finding.witnesses);
  return out;
}

proto::Clip ClipFromPlan(const Trace& trace, const LocksetTable& locksets, const Finding& finding,
                         const ClipPlan& plan, const std::string& trace_hash) {
  proto::Clip clip;
  clip.set_format_major(kClipFormatMajor);
  clip.set_format_minor(kClipFormatMinor);
  clip.set_trace_hash(trace_hash);
  clip.set_program(trace.meta.program);
  for (const std::string& arg : trace.meta.args) clip.add_args(arg);
  for (const ModuleInfo& module : trace.modules) *clip.add_modules() = ModuleToProto(module);
  *clip.mutable_finding() = FindingToMessage(trace, locksets, finding);
  for (ThreadId t = 0; t < trace.threads.size(); ++t) {
    *clip.add_threads() = ThreadToProto(t, trace.threads[t]);
  }

  const size_t n = plan.steps.size();
  clip.mutable_step_kind()->Reserve(static_cast<int>(n));
  clip.mutable_step_site()->Reserve(static_cast<int>(n));
  clip.mutable_step_origin()->Reserve(static_cast<int>(n));
  std::vector<bool> site_used(trace.sites.size(), false);
  uint32_t run_length = 0;
  ThreadId run_thread = 0;
  for (EventIndex e : plan.steps) {
    const ThreadId t = trace.thread[e];
    if (run_length > 0 && t != run_thread) {
      clip.add_run_thread(run_thread);
      clip.add_run_length(run_length);
      run_length = 0;
    }
    run_thread = t;
    ++run_length;
    clip.add_step_kind(static_cast<uint32_t>(trace.kind[e]));
    clip.add_step_site(trace.site[e]);
    clip.add_step_origin(e);
    if (trace.site[e] < site_used.size()) site_used[trace.site[e]] = true;
  }
  if (run_length > 0) {
    clip.add_run_thread(run_thread);
    clip.add_run_length(run_length);
  }
  const std::vector<uint64_t> repeats = StepRepeatDistances(trace, plan.steps);
  clip.mutable_step_repeat_of()->Add(repeats.begin(), repeats.end());
  if (!trace.repeats_before.empty()) {
    for (EventIndex e : plan.steps) clip.add_step_repeats_before(trace.repeats_before[e]);
  }
  // The finding's own sites too: a deadlock's requests are not steps, and the replay checks
  // that the threads block at them.
  for (EventIndex e : finding.events) {
    if (e < trace.size_events() && trace.site[e] < site_used.size())
      site_used[trace.site[e]] = true;
  }
  for (SiteId s = 0; s < site_used.size(); ++s) {
    if (site_used[s]) *clip.add_sites() = SiteToProto(s, trace.sites[s]);
  }
  for (uint64_t step : plan.moved_steps) clip.add_moved_steps(step);
  for (uint64_t step : plan.anomaly_steps) clip.add_anomaly_steps(step);
  clip.set_generator(plan.generator);

  proto::RecorderSettings* settings = clip.mutable_settings();
  settings->set_chunk_events(trace.meta.settings.chunk_events);
  settings->set_zstd_level(trace.meta.settings.zstd_level);
  settings->set_func_events(trace.meta.settings.func_events);
  settings->set_stack_accesses(trace.meta.settings.stack_accesses);
  settings->set_fork_policy(trace.meta.settings.fork_policy);
  settings->set_drop_repeats(trace.meta.settings.drop_repeats);
  return clip;
}

}  // namespace pecan
