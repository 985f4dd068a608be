// Test harness for the scheduler core: clips written as short strings, a locator whose PCs are
// the sites' offsets, an observer that records the run's milestones, and a running watchdog.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "proto/clip.pb.h"
#include "replayer/clip_follow_policy.h"
#include "replayer/replay_schedule.h"
#include "replayer/scheduler.h"
#include "replayer/site_locator.h"
#include "replayer/watchdog.h"
#include "trace_format/event_kind.h"

namespace pecan::replay::testing {

// Sites are "module 0" sites whose offset is the PC itself.
class OffsetIsPcLocator : public SiteLocator {
 public:
  void Locate(const ReplaySchedule& schedule, std::vector<uint64_t>& runtime_pc) override {
    runtime_pc.clear();
    for (const auto& site : schedule.sites) runtime_pc.push_back(site.offset);
  }
  std::string DescribePc(uint64_t pc) override { return "loc " + std::to_string(pc); }
};

// Threads: "0" is main, "1<0" is the first child of 0, "2<0" its second, "3<1" ... given as
// "id<parent" in creation order of each parent. Steps: "T<id>:<kind>@<pc>", space separated.
// Anomaly steps are marked with a trailing '!' and ":<addr>" after the pc: "T1:read@7:4096!".
inline proto::Clip MakeClip(const std::string& threads, const std::string& steps) {
  proto::Clip clip;
  clip.set_format_major(1);
  std::istringstream thread_words(threads);
  std::string word;
  std::vector<uint32_t> children_of(64, 0);
  while (thread_words >> word) {
    auto* info = clip.add_threads();
    size_t lt = word.find('<');
    info->set_id(std::stoul(word.substr(0, lt)));
    if (lt != std::string::npos) {
      uint32_t parent = std::stoul(word.substr(lt + 1));
      info->set_parent(parent);
      info->set_ordinal(children_of[parent]++);
    }
  }
  std::istringstream step_words(steps);
  std::vector<uint64_t> site_ids;
  uint32_t last_thread = UINT32_MAX;
  uint64_t step = 0;
  while (step_words >> word) {
    bool anomaly = word.back() == '!';
    if (anomaly) word.pop_back();
    size_t colon = word.find(':');
    size_t at = word.find('@');
    uint32_t thread = std::stoul(word.substr(1, colon - 1));
    EventKind kind = *EventKindFromName(word.substr(colon + 1, at - colon - 1));
    std::string rest = word.substr(at + 1);
    size_t addr_colon = rest.find(':');
    uint64_t pc = std::stoull(rest.substr(0, addr_colon));
    if (thread != last_thread) {
      clip.add_run_thread(thread);
      clip.add_run_length(0);
      last_thread = thread;
    }
    clip.set_run_length(clip.run_length_size() - 1,
                        clip.run_length(clip.run_length_size() - 1) + 1);
    clip.add_step_kind(static_cast<uint32_t>(kind));
    bool known = false;
    for (uint64_t id : site_ids) known = known || id == pc;
    if (!known) {
      auto* site = clip.add_sites();
      site->set_id(static_cast<uint32_t>(pc));
      site->set_module(0);
      site->set_offset(pc);
      site_ids.push_back(pc);
    }
    clip.add_step_site(static_cast<uint32_t>(pc));
    if (anomaly) {
      clip.add_anomaly_steps(step);
      auto* event = clip.mutable_finding()->add_events();
      event->set_thread(thread);
      event->set_kind(static_cast<proto::EventKind>(kind));
      event->set_address(
          addr_colon == std::string::npos ? 0 : std::stoull(rest.substr(addr_colon + 1)));
      event->set_size(4);
    }
    ++step;
  }
  clip.mutable_finding()->set_id("test-finding");
  return clip;
}

class RecordingObserver : public ReplayObserver {
 public:
  void OnAnomalyFormed() override {
    std::lock_guard lock(mutex_);
    ++anomalies_formed;
  }
  void OnScheduleFinished() override {
    std::lock_guard lock(mutex_);
    finished = true;
    changed_.notify_all();
  }
  void OnStopped(const StopReport& report) override {
    std::lock_guard lock(mutex_);
    stopped = report;
    changed_.notify_all();
  }
  // Waits (bounded) until the run finished or stopped.
  bool WaitForEnd(std::chrono::milliseconds bound) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, bound, [&] { return finished || stopped.has_value(); });
  }

  int anomalies_formed = 0;
  bool finished = false;
  std::optional<StopReport> stopped;

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
};

inline EventView Ev(EventKind kind, uint64_t pc, uint64_t addr = 0) {
  return EventView{kind, pc, addr, 4};
}

// One scheduled run: schedule, policy, scheduler and a watchdog thread.
struct ScheduledRun {
  ScheduledRun(const proto::Clip& clip, Watchdog::Options watchdog_options = FastWatchdog(),
               Scheduler::Options scheduler_options = {})
      : schedule(ReplaySchedule::FromClip(clip)),
        policy(schedule, locator),
        scheduler(policy, observer, SmallSlots(scheduler_options)),
        watchdog(scheduler, watchdog_options),
        watchdog_thread([this] { watchdog.Run(); }) {}
  ~ScheduledRun() {
    watchdog.RequestExit();
    watchdog_thread.join();
  }

  static Watchdog::Options FastWatchdog() {
    Watchdog::Options options;
    options.tick = std::chrono::milliseconds(2);
    options.idle_grace = std::chrono::milliseconds(10);
    options.busy_grace = std::chrono::milliseconds(2000);
    options.deadlock_confirm = std::chrono::milliseconds(100);
    options.time_bound = std::chrono::milliseconds(5000);
    return options;
  }
  static Scheduler::Options SmallSlots(Scheduler::Options options) {
    options.max_threads = 64;
    options.wait_slice = std::chrono::milliseconds(20);
    return options;
  }

  OffsetIsPcLocator locator;
  RecordingObserver observer;
  ReplaySchedule schedule;
  ClipFollowPolicy policy;
  Scheduler scheduler;
  Watchdog watchdog;
  std::thread watchdog_thread;
};

}  // namespace pecan::replay::testing
