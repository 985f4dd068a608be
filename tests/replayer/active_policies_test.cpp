// The scheduler's policy is pluggable: strategies other than following a clip drive the same
// mechanism. Two test strategies over real threads: a seeded random one (the same seed gives
// the same interleaving every run, as active testing needs) and a RaceFuzzer-like one that
// postpones a thread about to access a location until another thread waits at a conflicting
// access to it, then runs the two back to back.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "replayer/schedule_policy.h"
#include "replayer/scheduler.h"
#include "replayer/watchdog.h"
#include "scheduler_harness.h"

namespace pecan::replay::testing {
namespace {

using K = EventKind;

// What every test strategy shares: threads numbered in creation order, no steps to describe.
class TestStrategy : public SchedulePolicy {
 public:
  LogicalThread IdentifyThread(LogicalThread parent, uint32_t ordinal) override {
    std::lock_guard lock(mutex_);
    auto [it, inserted] = ids_.try_emplace((uint64_t{parent} << 32) | ordinal,
                                           static_cast<LogicalThread>(ids_.size()));
    return it->second;
  }
  LogicalThread FirstHolder() override { return 0; }
  bool WantsSettledThreads() const override { return true; }
  Progress Execute(LogicalThread, const EventView&) override {
    ++steps_;
    return {};
  }
  bool OwnsNextStep(LogicalThread) const override { return false; }
  uint64_t StepsExecuted() const override { return steps_; }
  uint64_t StepsTotal() const override { return 0; }
  std::string DescribeDivergence(LogicalThread, const EventView&) const override { return ""; }
  std::string DescribeNextStep() const override { return "any thread"; }
  std::string ThreadName(LogicalThread thread) const override {
    return "T" + std::to_string(thread);
  }
  StopReport StopReportForPolicyStop() const override { return {}; }

 protected:
  static std::vector<LogicalThread> Others(LogicalThread self, const WaitingThreads& waiting) {
    std::vector<LogicalThread> others;
    waiting.ForEach([&](LogicalThread t, const EventView&) {
      if (t != self) others.push_back(t);
    });
    return others;
  }

 private:
  std::mutex mutex_;
  std::map<uint64_t, LogicalThread> ids_;
  std::atomic<uint64_t> steps_{0};
};

// At each event: with probability 1/3 switch to a random other waiting thread.
class SeededRandomStrategy final : public TestStrategy {
 public:
  explicit SeededRandomStrategy(uint64_t seed) : rng_(seed) {}
  Check CheckEvent(LogicalThread thread, const EventView&, const WaitingThreads& waiting) override {
    if (Others(thread, waiting).empty() || rng_() % 3 != 0) return Check::kMine;
    return Check::kNotMine;
  }
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override {
    const std::vector<LogicalThread> others = Others(from, waiting);
    return others.empty() ? from : others[rng_() % others.size()];
  }

 private:
  std::mt19937_64 rng_;
};

// RaceFuzzer's idea (Sen, PLDI 2008) on one location: a thread about to access it waits while
// another thread can run instead, until some other thread waits at an access to it too.
class RaceDirectedStrategy final : public TestStrategy {
 public:
  explicit RaceDirectedStrategy(uint64_t target) : target_(target) {}
  Check CheckEvent(LogicalThread thread, const EventView& event,
                   const WaitingThreads& waiting) override {
    bool partner = false, other = false;
    if (event.addr != target_ || !IsAccess(event.kind)) {
      // Right after a target access, its partner goes next, before this thread goes on.
      if (!from_target_) return Check::kMine;
      from_target_ = false;
      waiting.ForEach([&](LogicalThread t, const EventView& e) {
        partner = partner || (t != thread && e.addr == target_ && IsAccess(e.kind));
      });
      return partner ? Check::kNotMine : Check::kMine;
    }
    waiting.ForEach([&](LogicalThread t, const EventView& e) {
      if (t == thread) return;
      other = true;
      partner = partner || (e.addr == target_ && IsAccess(e.kind));
    });
    // The race is here: the other access just ran, or waits for this one (or nobody else can
    // run at all).
    if (last_was_target_ || partner || !other) return Check::kMine;
    return Check::kNotMine;
  }
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override {
    // The partner of a just-run target access first; otherwise a thread not held back.
    LogicalThread chosen = kNoThread, partner = kNoThread;
    waiting.ForEach([&](LogicalThread t, const EventView& e) {
      if (t == from) return;
      if (e.addr == target_ && IsAccess(e.kind)) {
        if (partner == kNoThread) partner = t;
      } else if (chosen == kNoThread) {
        chosen = t;
      }
    });
    if (partner != kNoThread && (chosen == kNoThread || last_was_target_)) return partner;
    return chosen != kNoThread ? chosen : (partner != kNoThread ? partner : from);
  }
  Progress Execute(LogicalThread thread, const EventView& event) override {
    from_target_ = last_was_target_ = event.addr == target_ && IsAccess(event.kind);
    return TestStrategy::Execute(thread, event);
  }

 private:
  uint64_t target_;
  bool from_target_ = false;      // the holder's last event was a target access
  bool last_was_target_ = false;  // the last event executed at all was one
};

struct Entry {
  int thread;
  uint64_t pc;
  bool operator==(const Entry&) const = default;
};

std::string Text(const std::vector<Entry>& log) {
  std::string text;
  for (const Entry& e : log) text += std::to_string(e.thread) + ":" + std::to_string(e.pc) + " ";
  return text;
}

// Main creates `children` threads; child c writes its own address 20 times (pc c*100+i), with an
// access to `shared` as its `shared_at`-th event. Returns the order the events ran in.
std::vector<Entry> RunThreads(SchedulePolicy& policy, int children,
                              std::function<int(int)> shared_at, uint64_t shared) {
  RecordingObserver observer;
  Scheduler::Options options;
  options.max_threads = 64;
  options.wait_slice = std::chrono::milliseconds(20);
  Scheduler s(policy, observer, options);
  std::mutex mutex;
  std::vector<Entry> log;
  auto run = [&](int thread, K kind, uint64_t pc, uint64_t addr) {
    s.OnEvent(Ev(kind, pc, addr));
    std::lock_guard lock(mutex);
    log.push_back({thread, pc});
  };
  std::thread main_thread([&] {
    s.AttachMainThread();
    run(0, K::kThreadBegin, 1, 0);
    std::vector<std::thread> threads;
    for (int c = 1; c <= children; ++c) {
      run(0, K::kFork, 1 + c, 0);
      const LogicalThread id = s.ReserveChild();
      s.ChildForked(id);  // its FORK has run
      threads.emplace_back([&, c, id] {
        s.AttachThread(id);
        run(c, K::kThreadBegin, c * 100, 0);
        for (int i = 1; i <= 20; ++i) {
          const bool at_shared = i == shared_at(c);
          run(c, at_shared ? K::kRead : K::kWrite, c * 100 + i, at_shared ? shared : 0x1000 * c);
        }
        s.OnEvent(Ev(K::kThreadEnd, c * 100 + 99));
        s.DetachThread();
      });
    }
    s.BeginBlocking({EventKind::kJoin, 0, 0, 0});  // joins: the children run meanwhile
    for (auto& t : threads) t.join();
    s.EndBlocking();
    s.DetachThread();
  });
  main_thread.join();
  CHECK_FALSE(observer.stopped.has_value());
  return log;
}

TEST_CASE("a seeded strategy drives real threads the same way for the same seed",
          "[replayer][policy]") {
  auto never = [](int) { return 0; };
  std::set<std::string> distinct;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    SeededRandomStrategy first(seed);
    const std::vector<Entry> reference = RunThreads(first, 3, never, 0);
    REQUIRE(reference.size() == 1 + 3 + 3 * 21);
    for (int again = 0; again < 3; ++again) {
      SeededRandomStrategy same(seed);
      INFO("seed " << seed << ", run " << again);
      const std::vector<Entry> log = RunThreads(same, 3, never, 0);
      size_t diff = 0;
      while (diff < log.size() && diff < reference.size() && log[diff] == reference[diff]) ++diff;
      INFO("first difference at "
           << diff << ": "
           << Text(std::vector<Entry>(reference.begin() + std::max<size_t>(diff, 3) - 3,
                                      reference.end()))
           << "\nvs "
           << Text(std::vector<Entry>(log.begin() + std::max<size_t>(diff, 3) - 3, log.end())));
      CHECK(log == reference);
    }
    std::string text;
    for (const Entry& e : reference) text += std::to_string(e.thread) + ",";
    distinct.insert(text);
  }
  // Different seeds explore different interleavings.
  CHECK(distinct.size() >= 3);
}

// Counts the policy's choices of a next holder (each draws a number).
class CountingRandomStrategy final : public TestStrategy {
 public:
  Check CheckEvent(LogicalThread, const EventView&, const WaitingThreads&) override {
    return Check::kMine;
  }
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override {
    ++choices;
    const std::vector<LogicalThread> others = Others(from, waiting);
    return others.empty() ? from : others.front();
  }
  std::atomic<int> choices{0};
};

TEST_CASE("a holder alone in a system call keeps the turn and the policy is not asked",
          "[replayer][policy][watchdog]") {
  // Nobody else could take the turn: the watchdog neither hands it over nor asks the policy
  // for a next holder, which at a moment set by timing would change a seeded run.
  CountingRandomStrategy strategy;
  RecordingObserver observer;
  Scheduler::Options options;
  options.max_threads = 64;
  Scheduler s(strategy, observer, options);
  Watchdog watchdog(s, ScheduledRun::FastWatchdog());  // idle after 10 ms
  std::thread watchdog_thread([&] { watchdog.Run(); });
  std::thread main_thread([&] {
    s.AttachMainThread();
    s.OnEvent(Ev(K::kThreadBegin, 1));
    s.OnEvent(Ev(K::kWrite, 2, 0x1000));
    std::this_thread::sleep_for(std::chrono::milliseconds(150));  // e.g. reading a file
    s.OnEvent(Ev(K::kWrite, 3, 0x1000));
    s.DetachThread();
  });
  main_thread.join();
  watchdog.RequestExit();
  watchdog_thread.join();
  CHECK_FALSE(observer.stopped.has_value());
  CHECK(watchdog.idle_handovers() == 0);
  CHECK(strategy.choices == 1);  // only at the end, when the thread exits
}

TEST_CASE("under a strategy that chooses, a holder in a timed sleep keeps the turn",
          "[replayer][policy][watchdog]") {
  // Whether the child ran during main's sleep would depend on the sleep's length against the
  // child's start-up: the same seed could run two ways. The child runs when main gives the
  // turn up, at its join.
  CountingRandomStrategy strategy;
  RecordingObserver observer;
  Scheduler::Options options;
  options.max_threads = 64;
  options.settle_bound = std::chrono::milliseconds(20);  // the child given the turn would not
                                                          // wait for main to wake up
  Scheduler s(strategy, observer, options);
  Watchdog watchdog(s, ScheduledRun::FastWatchdog());  // idle after 10 ms, busy after 2 s
  std::thread watchdog_thread([&] { watchdog.Run(); });
  std::atomic<bool> main_woke{false};
  bool child_saw_main_awake = false;
  std::thread main_thread([&] {
    s.AttachMainThread();
    s.OnEvent(Ev(K::kThreadBegin, 1));
    s.OnEvent(Ev(K::kFork, 2));
    const LogicalThread id = s.ReserveChild();
    s.ChildForked(id);
    std::thread child([&, id] {
      s.AttachThread(id);
      s.OnEvent(Ev(K::kThreadBegin, 100));
      child_saw_main_awake = main_woke.load();
      s.OnEvent(Ev(K::kThreadEnd, 199));
      s.DetachThread();
    });
    s.OnEvent(Ev(K::kWrite, 3, 0x1000));  // the child waits at its first event from here on
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    main_woke = true;
    s.BeginBlocking({EventKind::kJoin, 4, 0, 0});
    child.join();
    s.EndBlocking();
    s.DetachThread();
  });
  main_thread.join();
  watchdog.RequestExit();
  watchdog_thread.join();
  CHECK_FALSE(observer.stopped.has_value());
  CHECK(child_saw_main_awake);
  CHECK(watchdog.idle_handovers() == 0);
}

TEST_CASE("a choice made before a thread settled is counted as timing-dependent",
          "[replayer][policy]") {
  // The child runs uninstrumented code for 60 ms before its first event: main's choices wait
  // for it only settle_bound long, then go on without it, which depends on timing.
  CountingRandomStrategy strategy;
  RecordingObserver observer;
  Scheduler::Options options;
  options.max_threads = 64;
  options.settle_bound = std::chrono::milliseconds(20);
  Scheduler s(strategy, observer, options);
  Watchdog watchdog(s, ScheduledRun::FastWatchdog());
  std::thread watchdog_thread([&] { watchdog.Run(); });
  std::thread main_thread([&] {
    s.AttachMainThread();
    s.OnEvent(Ev(K::kThreadBegin, 1));
    s.OnEvent(Ev(K::kFork, 2));
    const LogicalThread id = s.ReserveChild();
    s.ChildForked(id);
    std::thread child([&, id] {
      s.AttachThread(id);
      std::this_thread::sleep_for(std::chrono::milliseconds(60));  // < deadlock_confirm
      s.OnEvent(Ev(K::kThreadBegin, 100));
      s.OnEvent(Ev(K::kThreadEnd, 199));
      s.DetachThread();
    });
    s.OnEvent(Ev(K::kWrite, 3, 0x1000));  // chosen without the child, 20 ms after the FORK
    std::this_thread::sleep_for(std::chrono::milliseconds(120));  // the child now waits
    s.BeginBlocking({EventKind::kJoin, 4, 0, 0});
    child.join();
    s.EndBlocking();
    s.DetachThread();
  });
  main_thread.join();
  watchdog.RequestExit();
  watchdog_thread.join();
  INFO((observer.stopped ? observer.stopped->reason : std::string()));
  CHECK_FALSE(observer.stopped.has_value());
  CHECK(s.unsettled_choices() >= 1);
}

TEST_CASE("a race-directed strategy sees what waiting threads are about to do",
          "[replayer][policy]") {
  constexpr uint64_t kShared = 0x5000;
  // Child 1 reaches the shared location at its 3rd access, child 2 only at its 18th: left to
  // themselves they would run far apart. The strategy holds child 1 back until child 2 waits
  // at the conflicting access, then runs the two back to back.
  RaceDirectedStrategy strategy(kShared);
  const std::vector<Entry> log = RunThreads(
      strategy, 2, [](int c) { return c == 1 ? 3 : 18; }, kShared);
  size_t first = log.size(), second = log.size();
  for (size_t i = 0; i < log.size(); ++i) {
    if (log[i].pc == 103) first = i;
    if (log[i].pc == 218) second = i;
  }
  INFO(Text(log));
  REQUIRE(first < log.size());
  REQUIRE(second < log.size());
  CHECK((first + 1 == second || second + 1 == first));
}

}  // namespace
}  // namespace pecan::replay::testing
