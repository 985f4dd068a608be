// Flattening a pecan.proto.Clip into a ReplaySchedule, with the consistency checks replay needs.
#include "replayer/replay_schedule.h"

#include <cstdio>
#include <unordered_map>
#include <utility>

#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"

namespace pecan::replay {
namespace {

std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

ReplaySchedule ReplaySchedule::FromClip(const proto::Clip& clip) {
  ReplaySchedule schedule;
  schedule.finding_id = clip.finding().id();
  schedule.pattern = clip.finding().pattern();

  std::unordered_map<uint32_t, LogicalThread> thread_by_clip_id;
  for (const auto& info : clip.threads()) {
    if (!thread_by_clip_id.emplace(info.id(), schedule.threads.size()).second)
      throw PecanError("thread " + std::to_string(info.id()) + " listed twice");
    ScheduleThread thread;
    thread.clip_id = info.id();
    thread.ordinal = info.ordinal();
    thread.name = info.name().empty() ? "T" + std::to_string(info.id()) : info.name();
    schedule.threads.push_back(std::move(thread));
  }
  bool has_main = false;
  for (size_t i = 0; i < schedule.threads.size(); ++i) {
    const auto& info = clip.threads(static_cast<int>(i));
    if (!info.has_parent()) {
      has_main = true;
      continue;
    }
    auto parent = thread_by_clip_id.find(info.parent());
    if (parent == thread_by_clip_id.end())
      throw PecanError("thread " + std::to_string(info.id()) + " names an unknown parent " +
                       std::to_string(info.parent()));
    schedule.threads[i].parent = parent->second;
  }
  if (!schedule.threads.empty() && !has_main)
    throw PecanError("no main thread in the thread table");

  for (const auto& module : clip.modules())
    schedule.modules.push_back({module.id(), module.path(), module.build_id()});

  std::unordered_map<uint32_t, uint32_t> site_by_clip_id;
  for (const auto& site : clip.sites()) {
    if (!site_by_clip_id.emplace(site.id(), schedule.sites.size()).second)
      throw PecanError("site " + std::to_string(site.id()) + " listed twice");
    if (site.module() != 0 && schedule.FindModule(site.module()) == nullptr)
      throw PecanError("site " + std::to_string(site.id()) + " names an unknown module " +
                       std::to_string(site.module()));
    schedule.sites.push_back({site.id(), site.module(), site.offset()});
  }

  if (clip.run_thread_size() != clip.run_length_size())
    throw PecanError("run_thread and run_length differ in length");
  const int step_count = clip.step_kind_size();
  if (clip.step_site_size() != step_count)
    throw PecanError("step_kind and step_site differ in length");
  schedule.knows_repeats = clip.step_repeat_of_size() != 0;
  if (schedule.knows_repeats && clip.step_repeat_of_size() != step_count)
    throw PecanError("step_kind and step_repeat_of differ in length");
  if (clip.step_repeats_before_size() != 0 && clip.step_repeats_before_size() != step_count)
    throw PecanError("step_kind and step_repeats_before differ in length");
  schedule.steps.reserve(step_count);
  for (int run = 0; run < clip.run_thread_size(); ++run) {
    auto thread = thread_by_clip_id.find(clip.run_thread(run));
    if (thread == thread_by_clip_id.end())
      throw PecanError("run " + std::to_string(run) + " names an unknown thread " +
                       std::to_string(clip.run_thread(run)));
    for (uint32_t k = 0; k < clip.run_length(run); ++k) {
      const int step = static_cast<int>(schedule.steps.size());
      if (step >= step_count) throw PecanError("the runs hold more steps than step_kind");
      uint32_t kind = clip.step_kind(step);
      if (kind == 0 || kind >= static_cast<uint32_t>(kEventKindCount))
        throw PecanError("step " + std::to_string(step) + " has an unknown kind " +
                         std::to_string(kind));
      auto site = site_by_clip_id.find(clip.step_site(step));
      if (site == site_by_clip_id.end())
        throw PecanError("step " + std::to_string(step) + " names an unknown site " +
                         std::to_string(clip.step_site(step)));
      const uint32_t repeats_before =
          clip.step_repeats_before_size() != 0 ? clip.step_repeats_before(step) : 0;
      if (repeats_before > UINT16_MAX)
        throw PecanError("step " + std::to_string(step) + " has " + std::to_string(repeats_before) +
                         " repeats before it; the recorder counts at most 65535");
      ScheduleStep entry;
      entry.thread = thread->second;
      entry.kind = static_cast<EventKind>(kind);
      entry.site = site->second;
      entry.repeats_before = static_cast<uint16_t>(repeats_before);
      if (schedule.knows_repeats && clip.step_repeat_of(step) != 0) {
        const uint64_t back = clip.step_repeat_of(step);
        if (back > static_cast<uint64_t>(step) ||
            schedule.steps[step - back].thread != entry.thread ||
            schedule.steps[step - back].site != entry.site)
          throw PecanError("step " + std::to_string(step) +
                           " repeats a step that is not the same thread's access at its site");
        entry.repeat_of = static_cast<uint64_t>(step) - back;
      }
      schedule.steps.push_back(entry);
    }
  }
  if (static_cast<int>(schedule.steps.size()) != step_count)
    throw PecanError("the runs hold " + std::to_string(schedule.steps.size()) +
                     " steps but step_kind has " + std::to_string(step_count));

  const auto& events = clip.finding().events();
  uint64_t previous = 0;
  for (int i = 0; i < clip.anomaly_steps_size(); ++i) {
    uint64_t step = clip.anomaly_steps(i);
    if (step >= schedule.steps.size())
      throw PecanError("anomaly step " + std::to_string(step) + " is past the schedule's end");
    if (i > 0 && step <= previous) throw PecanError("anomaly steps are not in increasing order");
    previous = step;
    AnomalyStep anomaly{step, 0, 0};
    if (i < events.size()) {
      anomaly.recorded_address = events[i].address();
      anomaly.recorded_size = events[i].size();
    }
    schedule.anomaly.push_back(anomaly);
  }
  for (const auto& event : events) {
    auto site = site_by_clip_id.find(event.site());
    schedule.finding_sites.push_back(site == site_by_clip_id.end() ? kNoSite : site->second);
  }
  // A failure clip of a deadlock's replay (IsExecutedRunClip) names the finding only: it is the
  // run itself, which ends with the threads at their requests, followed like any run's clip.
  if (schedule.pattern == "deadlock" && !IsExecutedRunClip(clip)) {
    // Per thread of the cycle: the acquisition it holds, then its request (not a step).
    if (events.size() < 4 || events.size() % 2 != 0)
      throw PecanError("a deadlock clip's finding must list a held lock and a request per thread");
    for (int i = 1; i < events.size(); i += 2) {
      auto thread = thread_by_clip_id.find(events[i].thread());
      if (thread == thread_by_clip_id.end())
        throw PecanError("deadlock request " + std::to_string(i / 2) + " names thread " +
                         std::to_string(events[i].thread()) + ", which the clip does not list");
      auto site = site_by_clip_id.find(events[i].site());
      if (site == site_by_clip_id.end())
        throw PecanError("deadlock request " + std::to_string(i / 2) + " names site " +
                         std::to_string(events[i].site()) + ", which the clip does not list");
      schedule.deadlock_requests.push_back(
          {thread->second, site->second, static_cast<EventKind>(events[i].kind())});
    }
  }
  return schedule;
}

bool ReplaySchedule::ReverseRaceOrder() {
  if (pattern != "race" || anomaly.size() != 2) return false;
  const uint64_t first = anomaly[0].step;
  const uint64_t second = anomaly[1].step;
  if (second != first + 1 || steps[first].thread == steps[second].thread) return false;
  std::swap(steps[first], steps[second]);
  // Repeats name steps by position: whatever repeated one of the two now names its new place.
  for (ScheduleStep& step : steps) {
    if (step.repeat_of == first) {
      step.repeat_of = second;
    } else if (step.repeat_of == second) {
      step.repeat_of = first;
    }
  }
  std::swap(anomaly[0], anomaly[1]);
  anomaly[0].step = first;
  anomaly[1].step = second;
  return true;
}

const ScheduleModule* ReplaySchedule::FindModule(uint32_t id) const {
  for (const auto& module : modules)
    if (module.id == id) return &module;
  return nullptr;
}

std::string ReplaySchedule::ThreadName(LogicalThread thread) const {
  if (thread < threads.size()) return threads[thread].name;
  // A thread the clip does not name (created after its last step, or on another path): named by
  // its id in this run, which its failure clip uses too.
  return "T" + std::to_string(thread);
}

std::string ReplaySchedule::DescribeSite(uint32_t site) const {
  if (site >= sites.size()) return "?";
  const ScheduleSite& s = sites[site];
  char offset[32];
  std::snprintf(offset, sizeof offset, "0x%llx", static_cast<unsigned long long>(s.offset));
  const ScheduleModule* module = FindModule(s.module);
  if (module == nullptr) return std::string("loc ") + offset;
  return BaseName(module->path) + "+" + offset;
}

}  // namespace pecan::replay
