// Self-test of RandomTraceGenerator: deterministic, within bounds, and every trace is a
// feasible execution (checked here independently of the oracle, and by the oracle).
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "tests/support/brute_force_oracle.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/trace_text.h"

using namespace pecan;
using namespace pecan::test;

namespace {

// Returns "" when the recorded order is a real execution, else what is wrong.
std::string CheckRecordedOrder(const Trace& trace) {
  std::map<uint64_t, ThreadId> writer;
  std::map<uint64_t, int> readers;
  std::map<ThreadId, std::vector<std::pair<uint64_t, bool>>> held;
  std::set<ThreadId> started, ended, joined, forked{0};
  std::map<ThreadId, EventIndex> last_event;
  std::map<uint64_t, EventIndex> last_notify;   // cv -> index
  std::map<ThreadId, EventIndex> window_start;  // waiter -> its UNLOCK
  for (EventIndex i = 0; i < trace.size_events(); ++i) last_event[trace.thread[i]] = i;
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    ThreadId t = trace.thread[i];
    uint64_t a = trace.addr[i];
    std::string at = "event " + std::to_string(i) + ": ";
    if (!forked.count(t)) return at + "thread runs before it was forked";
    if (joined.count(t)) return at + "thread runs after it was joined";
    auto& mine = held[t];
    switch (trace.kind[i]) {
      case EventKind::kLock:
        if (writer.count(a) || readers[a] > 0) return at + "lock already held";
        writer[a] = t;
        mine.push_back({a, false});
        break;
      case EventKind::kReadLock:
        if (writer.count(a)) return at + "read lock while a writer holds it";
        ++readers[a];
        mine.push_back({a, true});
        break;
      case EventKind::kUnlock:
      case EventKind::kReadUnlock: {
        bool read = trace.kind[i] == EventKind::kReadUnlock;
        if (mine.empty() || mine.back() != std::make_pair(a, read))
          return at + "release is not of the innermost lock";
        mine.pop_back();
        if (read)
          --readers[a];
        else
          writer.erase(a);
        window_start[t] = i;
        break;
      }
      case EventKind::kFork:
        if (forked.count(static_cast<ThreadId>(a))) return at + "thread forked twice";
        forked.insert(static_cast<ThreadId>(a));
        break;
      case EventKind::kJoin:
        if (last_event.count(static_cast<ThreadId>(a)) && last_event[static_cast<ThreadId>(a)] > i)
          return at + "join before the child's last event";
        joined.insert(static_cast<ThreadId>(a));
        break;
      case EventKind::kNotify:
      case EventKind::kNotifyAll: {
        bool holds = false;
        for (auto& h : mine) holds = holds || !h.second;
        if (!holds) return at + "notify outside any lock";
        last_notify[a] = i;
        break;
      }
      case EventKind::kWait: {
        bool timed_out = trace.flags[i] & kWaitTimedOutFlag;
        EventIndex start = window_start[t];
        if (trace.kind[start] != EventKind::kUnlock) return at + "wait not preceded by unlock";
        int notifies = 0;
        for (EventIndex j = start + 1; j < i; ++j)
          if ((trace.kind[j] == EventKind::kNotify || trace.kind[j] == EventKind::kNotifyAll) &&
              trace.addr[j] == a)
            ++notifies;
        if (timed_out && notifies != 0) return at + "timed-out wait with a notify in its window";
        if (!timed_out && notifies != 1) return at + "woken wait without exactly one notify";
        if (i + 1 >= trace.size_events()) return at + "wait is the last event";
        break;
      }
      default:
        break;
    }
    if (i == last_event[t] && !mine.empty()) return at + "thread ends holding a lock";
  }
  for (ThreadId t : forked)
    if (t != 0 && !joined.count(t)) return "thread T" + std::to_string(t) + " never joined";
  return "";
}

}  // namespace

TEST_CASE("generator is deterministic per seed") {
  RandomTraceGenerator generator;
  Trace a = generator.Generate(42);
  Trace b = generator.Generate(42);
  Trace c = generator.Generate(43);
  CHECK(a.kind == b.kind);
  CHECK(a.thread == b.thread);
  CHECK(a.addr == b.addr);
  CHECK((a.kind != c.kind || a.thread != c.thread || a.addr != c.addr));
}

TEST_CASE("generated traces stay within the bounds and are feasible executions") {
  RandomTraceOptions plain;
  RandomTraceOptions everything;
  everything.atomics = true;
  everything.read_locks = true;
  everything.thread_begin_end = true;
  everything.max_lock_depth = 3;
  everything.max_locks = 3;
  for (const RandomTraceOptions& options : {plain, everything}) {
    RandomTraceGenerator generator(options);
    std::set<EventKind> kinds_seen;
    std::set<size_t> thread_counts;
    for (uint64_t seed = 0; seed < 300; ++seed) {
      Trace trace = generator.Generate(seed);
      INFO("seed " << seed << "\n" << DescribeTrace(trace));
      CHECK(trace.size_events() >= options.min_events);
      CHECK(trace.size_events() <= options.max_events);
      CHECK(trace.threads.size() >= options.min_threads);
      CHECK(trace.threads.size() <= options.max_threads);
      CHECK(trace.sites.size() == trace.size_events());
      CHECK(CheckRecordedOrder(trace) == "");
      BruteForceOracle oracle(trace);
      std::vector<EventIndex> recorded(trace.size_events());
      for (EventIndex i = 0; i < recorded.size(); ++i) recorded[i] = i;
      std::string why;
      CHECK(oracle.IsFeasible(recorded, true, &why));
      CHECK(why == "");
      for (EventKind kind : trace.kind) kinds_seen.insert(kind);
      thread_counts.insert(trace.threads.size());
    }
    // The generator really exercises what it promises.
    for (EventKind kind : {EventKind::kRead, EventKind::kWrite, EventKind::kLock,
                           EventKind::kUnlock, EventKind::kFork, EventKind::kJoin, EventKind::kWait,
                           EventKind::kNotify, EventKind::kNotifyAll})
      CHECK(kinds_seen.count(kind) == 1);
    if (options.atomics) {
      CHECK(kinds_seen.count(EventKind::kAtomicStore) == 1);
      CHECK(kinds_seen.count(EventKind::kAtomicLoad) == 1);
      CHECK(kinds_seen.count(EventKind::kReadLock) == 1);
      CHECK(kinds_seen.count(EventKind::kThreadBegin) == 1);
    }
    CHECK(thread_counts.count(2) == 1);
    CHECK(thread_counts.count(4) == 1);
  }
}

TEST_CASE("generated traces contain woken and timed-out waits with notify edges") {
  RandomTraceGenerator generator;
  int woken = 0, timed_out = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Trace trace = generator.Generate(seed);
    BruteForceOracle oracle(trace);
    for (EventIndex i = 0; i < trace.size_events(); ++i) {
      if (trace.kind[i] != EventKind::kWait) continue;
      bool has_notify_edge = false;
      for (EventIndex p : oracle.model().CrossPredecessors(i))
        has_notify_edge = has_notify_edge || trace.kind[p] == EventKind::kNotify ||
                          trace.kind[p] == EventKind::kNotifyAll;
      if (trace.flags[i] & kWaitTimedOutFlag) {
        ++timed_out;
        CHECK_FALSE(has_notify_edge);
      } else {
        ++woken;
        CHECK(has_notify_edge);
      }
    }
  }
  CHECK(woken > 10);
  CHECK(timed_out > 10);
}
