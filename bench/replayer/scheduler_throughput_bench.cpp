// Replay scheduler micro-benchmark: events per second while the schedule stays on one thread,
// and the cost of one thread switch (turn hand-over + wake-up) between two threads that
// alternate every step. Prints the figures bench/replayer/README.md quotes.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "proto/clip.pb.h"
#include "replayer/clip_follow_policy.h"
#include "replayer/replay_schedule.h"
#include "replayer/scheduler.h"
#include "replayer/site_locator.h"
#include "trace_format/event_kind.h"

using namespace pecan;
using namespace pecan::replay;

namespace {

class OffsetIsPcLocator : public SiteLocator {
 public:
  void Locate(const ReplaySchedule& schedule, std::vector<uint64_t>& runtime_pc) override {
    runtime_pc.clear();
    for (const auto& site : schedule.sites) runtime_pc.push_back(site.offset);
  }
  std::string DescribePc(uint64_t pc) override { return std::to_string(pc); }
};

class CountingObserver : public ReplayObserver {
 public:
  void OnAnomalyFormed() override {}
  void OnScheduleFinished() override { finished = true; }
  void OnStopped(const StopReport& report) override {
    std::fprintf(stderr, "stopped: %s\n", report.reason.c_str());
    std::exit(1);
  }
  bool finished = false;
};

// Threads 0 (main) and 1 (its child); `steps` reads at site 100 + (i % 8) by `thread_of(i)`.
template <typename ThreadOf>
proto::Clip MakeClip(uint64_t steps, ThreadOf thread_of) {
  proto::Clip clip;
  clip.add_threads()->set_id(0);
  auto* child = clip.add_threads();
  child->set_id(1);
  child->set_parent(0);
  for (uint32_t s = 0; s < 8; ++s) {
    auto* site = clip.add_sites();
    site->set_id(s);
    site->set_offset(100 + s);
  }
  uint32_t last = UINT32_MAX;
  for (uint64_t i = 0; i < steps; ++i) {
    uint32_t thread = thread_of(i);
    if (thread != last) {
      clip.add_run_thread(thread);
      clip.add_run_length(0);
      last = thread;
    }
    clip.set_run_length(clip.run_length_size() - 1,
                        clip.run_length(clip.run_length_size() - 1) + 1);
    clip.add_step_kind(static_cast<uint32_t>(EventKind::kRead));
    clip.add_step_site(static_cast<uint32_t>(i % 8));
  }
  return clip;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// All steps on the main thread.
double SingleThreadEventsPerSecond(uint64_t steps) {
  proto::Clip clip = MakeClip(steps, [](uint64_t) { return 0u; });
  ReplaySchedule schedule = ReplaySchedule::FromClip(clip);
  OffsetIsPcLocator locator;
  ClipFollowPolicy policy(schedule, locator);
  CountingObserver observer;
  Scheduler scheduler(policy, observer, Scheduler::Options{});
  double seconds = 0;
  std::thread main_thread([&] {
    scheduler.AttachMainThread();
    auto start = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < steps; ++i)
      scheduler.OnEvent(EventView{EventKind::kRead, 100 + (i % 8), 0x1000 + 8 * (i % 64), 8});
    seconds = Seconds(std::chrono::steady_clock::now() - start);
    scheduler.DetachThread();
  });
  main_thread.join();
  if (!observer.finished) std::exit(1);
  return static_cast<double>(steps) / seconds;
}

// Main and its child alternate every `run` steps; returns seconds per switch.
double SecondsPerSwitch(uint64_t switches, uint64_t run, uint32_t spin) {
  const uint64_t steps = switches * run;
  proto::Clip clip =
      MakeClip(steps, [run](uint64_t i) { return static_cast<uint32_t>((i / run) % 2); });
  ReplaySchedule schedule = ReplaySchedule::FromClip(clip);
  OffsetIsPcLocator locator;
  ClipFollowPolicy policy(schedule, locator);
  CountingObserver observer;
  Scheduler::Options options;
  options.spin_before_sleep = spin;
  Scheduler scheduler(policy, observer, options);
  auto body = [&](uint32_t me) {
    for (uint64_t i = 0; i < steps; ++i) {
      if ((i / run) % 2 != me) continue;
      scheduler.OnEvent(EventView{EventKind::kRead, 100 + (i % 8), 0x1000, 8});
    }
  };
  double seconds = 0;
  std::thread main_thread([&] {
    scheduler.AttachMainThread();
    LogicalThread child_id = scheduler.ReserveChild();
    std::thread child([&, child_id] {
      scheduler.AttachThread(child_id);
      body(1);
      scheduler.DetachThread();
    });
    auto start = std::chrono::steady_clock::now();
    body(0);
    // As the runtime does around a call that waits for other threads: hands the turn on.
    scheduler.BeginBlocking(EventView{.kind = EventKind::kJoin});
    child.join();
    scheduler.EndBlocking();
    seconds = Seconds(std::chrono::steady_clock::now() - start);
    scheduler.DetachThread();
  });
  main_thread.join();
  if (!observer.finished) std::exit(1);
  return seconds / static_cast<double>(switches);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t steps = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5'000'000;
  const uint64_t switches = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100'000;
  double best_rate = 0;
  for (int round = 0; round < 3; ++round)
    best_rate = std::max(best_rate, SingleThreadEventsPerSecond(steps));
  std::printf("single thread: %llu steps, %.1f million events/s (%.2f ns/event), best of 3\n",
              static_cast<unsigned long long>(steps), best_rate / 1e6, 1e9 / best_rate);
  for (uint32_t spin : {0u, 200u}) {
    double best = 1e9;
    for (int round = 0; round < 3; ++round)
      best = std::min(best, SecondsPerSwitch(switches, 1, spin));
    std::printf("thread switch every step (spin %u before sleeping): %.2f us/switch, best of 3\n",
                spin, best * 1e6);
  }
  double best = 1e9;
  for (int round = 0; round < 3; ++round)
    best = std::min(best, SecondsPerSwitch(switches / 10, 100, 0));
  std::printf("thread switch every 100 steps: %.2f us per switch incl. 100 events\n", best * 1e6);
  return 0;
}
