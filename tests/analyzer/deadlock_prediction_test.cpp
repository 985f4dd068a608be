// Lock-order deadlock prediction: the classic cycles (ABBA, three locks, dining philosophers)
// are predicted; guarded, fork- and notify-ordered, same-thread, trylock and read-only rwlock
// cycles are not. Every example is also analyzed from a .pecan file by the streaming analysis,
// which must find the same deadlocks.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <unistd.h>

#include "analyzer/analysis.h"
#include "analyzer/deadlock_prediction.h"
#include "analyzer/streaming_analysis.h"
#include "trace_builder.h"
#include "trace_format/trace_writer.h"

using pecan::EventIndex;
using pecan::Finding;
using pecan::LocksetTable;
using pecan::PorIndex;
using pecan::testing::TraceBuilder;

namespace {

constexpr uint64_t kA = 0xa0, kB = 0xb0, kC = 0xc0, kGuard = 0x90;

std::vector<Finding> Predict(const TraceBuilder& b) {
  const PorIndex por(b.trace());
  const LocksetTable locksets(b.trace());
  std::vector<Finding> indexed = pecan::PredictDeadlocks(b.trace(), por, locksets);
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("pecan-deadlock-test-" + std::to_string(::getpid()) + ".pecan"))
          .string();
  pecan::WriteTrace(path, b.trace());
  pecan::AnalysisOptions options;
  options.patterns = "deadlock";
  const pecan::AnalysisResult streamed = pecan::AnalyzeStreaming(path, options);
  std::filesystem::remove(path);
  REQUIRE(streamed.findings.size() == indexed.size());
  for (size_t i = 0; i < indexed.size(); ++i) {
    CHECK(streamed.findings[i].events == indexed[i].events);
    CHECK(streamed.findings[i].variant == indexed[i].variant);
    CHECK(streamed.findings[i].witnesses == indexed[i].witnesses);
  }
  return indexed;
}

// `t` takes `first` (at site s1) then `second` (at s2), and releases both.
struct Nesting {
  EventIndex held = 0;
  EventIndex request = 0;
};
Nesting Nest(TraceBuilder& b, pecan::ThreadId t, uint64_t first, uint64_t second, pecan::SiteId s1,
             pecan::SiteId s2) {
  Nesting n;
  n.held = b.Lock(t, first, s1);
  b.Write(t, 0x500 + t * 8, 9);
  n.request = b.Lock(t, second, s2);
  b.Unlock(t, second);
  b.Unlock(t, first);
  return n;
}

}  // namespace

TEST_CASE("Deadlock: ABBA where the first thread finishes before the second starts", "[deadlock]") {
  TraceBuilder b;
  b.Begin(1);
  const Nesting t1 = Nest(b, 1, kA, kB, 1, 2);
  b.End(1);
  b.Begin(2);
  const Nesting t2 = Nest(b, 2, kB, kA, 3, 4);
  b.End(2);
  const std::vector<Finding> found = Predict(b);
  REQUIRE(found.size() == 1);
  CHECK(found[0].pattern == "deadlock");
  CHECK(found[0].variant == "cycle of 2 locks");
  CHECK_FALSE(found[0].observed);
  CHECK(found[0].events == std::vector<EventIndex>{t1.held, t1.request, t2.held, t2.request});
}

TEST_CASE("Deadlock: a cycle of three locks over three threads", "[deadlock]") {
  TraceBuilder b;
  const Nesting t1 = Nest(b, 1, kA, kB, 1, 2);
  const Nesting t2 = Nest(b, 2, kB, kC, 3, 4);
  const Nesting t3 = Nest(b, 3, kC, kA, 5, 6);
  const std::vector<Finding> found = Predict(b);
  REQUIRE(found.size() == 1);
  CHECK(found[0].variant == "cycle of 3 locks");
  CHECK(found[0].events ==
        std::vector<EventIndex>{t1.held, t1.request, t2.held, t2.request, t3.held, t3.request});
}

TEST_CASE("Deadlock: a three-lock cycle needs three threads", "[deadlock]") {
  // T1 makes two of the edges: it cannot stand at both at once.
  TraceBuilder b;
  Nest(b, 1, kA, kB, 1, 2);
  Nest(b, 2, kB, kC, 3, 4);
  Nest(b, 1, kC, kA, 5, 6);
  CHECK(Predict(b).empty());
}

TEST_CASE("Deadlock: dining philosophers n = 2..7, and their lock-ordered twin", "[deadlock]") {
  for (uint64_t n = 2; n <= 7; ++n) {
    INFO("n = " << n);
    auto fork = [](uint64_t i) { return 0x1000 + 16 * i; };
    TraceBuilder b;
    for (uint64_t round = 0; round < 3; ++round) {
      for (uint64_t i = 0; i < n; ++i) {
        // Every philosopher runs the same code: the left fork at site 1, the right at site 2.
        Nest(b, static_cast<pecan::ThreadId>(i + 1), fork(i), fork((i + 1) % n), 1, 2);
      }
    }
    const std::vector<Finding> found = Predict(b);
    REQUIRE(found.size() == 1);
    CHECK(found[0].variant == "cycle of " + std::to_string(n) + " locks");
    CHECK(found[0].events.size() == 2 * n);

    // The fix: the last philosopher takes the lower-numbered fork first.
    TraceBuilder fixed;
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t left = fork(i), right = fork((i + 1) % n);
      Nest(fixed, static_cast<pecan::ThreadId>(i + 1), std::min(left, right), std::max(left, right),
           1, 2);
    }
    CHECK(Predict(fixed).empty());
  }
}

TEST_CASE("Deadlock: a common guard lock around both nestings prevents it", "[deadlock]") {
  TraceBuilder b;
  b.Lock(1, kGuard, 7);
  Nest(b, 1, kA, kB, 1, 2);
  b.Unlock(1, kGuard);
  b.Lock(2, kGuard, 7);
  Nest(b, 2, kB, kA, 3, 4);
  b.Unlock(2, kGuard);
  CHECK(Predict(b).empty());

  // Guarded on one side only: still a deadlock.
  TraceBuilder one_side;
  one_side.Lock(1, kGuard, 7);
  Nest(one_side, 1, kA, kB, 1, 2);
  one_side.Unlock(1, kGuard);
  Nest(one_side, 2, kB, kA, 3, 4);
  CHECK(Predict(one_side).size() == 1);
}

TEST_CASE("Deadlock: nestings ordered by fork or join cannot overlap", "[deadlock]") {
  TraceBuilder forked;
  Nest(forked, 0, kA, kB, 1, 2);
  forked.Fork(0, 1);
  forked.Begin(1);
  Nest(forked, 1, kB, kA, 3, 4);
  CHECK(Predict(forked).empty());

  TraceBuilder joined;
  joined.Fork(0, 1);
  joined.Begin(1);
  Nest(joined, 1, kA, kB, 1, 2);
  joined.End(1);
  joined.Join(0, 1);
  Nest(joined, 0, kB, kA, 3, 4);
  CHECK(Predict(joined).empty());

  // Forked first, nested after: concurrent, so a deadlock.
  TraceBuilder concurrent;
  concurrent.Fork(0, 1);
  Nest(concurrent, 0, kA, kB, 1, 2);
  concurrent.Begin(1);
  Nest(concurrent, 1, kB, kA, 3, 4);
  CHECK(Predict(concurrent).size() == 1);
}

TEST_CASE("Deadlock: a nesting after a wait its notify woke cannot overlap", "[deadlock]") {
  constexpr uint64_t kMutex = 0x70, kCondition = 0x50;
  TraceBuilder b;
  b.Lock(2, kMutex, 10);
  b.Unlock(2, kMutex, 11);  // the condition wait: UNLOCK m, WAIT cv, LOCK m
  Nest(b, 1, kA, kB, 1, 2);
  b.Lock(1, kMutex, 12);
  b.Notify(1, kCondition);
  b.Unlock(1, kMutex, 13);
  b.Wait(2, kCondition);
  b.Lock(2, kMutex, 10);
  b.Unlock(2, kMutex, 14);
  Nest(b, 2, kB, kA, 3, 4);
  CHECK(Predict(b).empty());
}

TEST_CASE("Deadlock: one thread taking the locks in both orders is no deadlock", "[deadlock]") {
  TraceBuilder b;
  Nest(b, 1, kA, kB, 1, 2);
  Nest(b, 1, kB, kA, 3, 4);
  CHECK(Predict(b).empty());
}

TEST_CASE("Deadlock: a trylock request gives up instead of waiting", "[deadlock]") {
  TraceBuilder b;
  Nest(b, 1, kA, kB, 1, 2);
  b.Lock(2, kB, 3);
  b.Add(2, pecan::EventKind::kLock, kA, 0, /*trylock=*/1, 4);
  b.Unlock(2, kA);
  b.Unlock(2, kB);
  CHECK(Predict(b).empty());

  // A lock held after a successful trylock still closes the cycle.
  TraceBuilder held;
  Nest(held, 1, kA, kB, 1, 2);
  held.Add(2, pecan::EventKind::kLock, kB, 0, /*trylock=*/1, 3);
  held.Lock(2, kA, 4);
  held.Unlock(2, kA);
  held.Unlock(2, kB);
  CHECK(Predict(held).size() == 1);
}

TEST_CASE("Deadlock: readers of an rwlock do not wait for each other", "[deadlock]") {
  auto build = [](bool second_reads) {
    TraceBuilder b;
    // T1 reads-locks A, then locks B; T2 locks B, then read- or write-locks A.
    b.Add(1, pecan::EventKind::kReadLock, kA, 0, 0, 1);
    b.Lock(1, kB, 2);
    b.Unlock(1, kB);
    b.Add(1, pecan::EventKind::kReadUnlock, kA, 0, 0, 0);
    b.Lock(2, kB, 3);
    b.Add(2, second_reads ? pecan::EventKind::kReadLock : pecan::EventKind::kLock, kA, 0, 0, 4);
    b.Add(2, second_reads ? pecan::EventKind::kReadUnlock : pecan::EventKind::kUnlock, kA, 0, 0, 0);
    b.Unlock(2, kB);
    return Predict(b);
  };
  CHECK(build(/*second_reads=*/true).empty());
  CHECK(build(/*second_reads=*/false).size() == 1);
}

TEST_CASE("Deadlock: a recursive re-acquisition is not an edge", "[deadlock]") {
  TraceBuilder b;
  const EventIndex held = b.Lock(1, kA, 1);
  b.Lock(1, kA, 5);  // recursive
  const EventIndex request = b.Lock(1, kB, 2);
  b.Unlock(1, kB);
  b.Unlock(1, kA);
  b.Unlock(1, kA);
  const Nesting t2 = Nest(b, 2, kB, kA, 3, 4);
  const std::vector<Finding> found = Predict(b);
  REQUIRE(found.size() == 1);
  CHECK(found[0].events == std::vector<EventIndex>{held, request, t2.held, t2.request});
}

TEST_CASE("Deadlock: the same cycle on many lock pairs is one finding", "[deadlock]") {
  // A transfer between accounts: lock(from) then lock(to), on heap locks of many pairs.
  TraceBuilder b;
  for (uint64_t i = 0; i < 5; ++i) {
    Nest(b, 1, 0x4000 + 16 * i, 0x4000 + 16 * (i + 1), 1, 2);
    Nest(b, 2, 0x4000 + 16 * (i + 1), 0x4000 + 16 * i, 1, 2);
  }
  const std::vector<Finding> found = Predict(b);
  REQUIRE(found.size() == 1);
  CHECK(found[0].witnesses == 5);
}

TEST_CASE("Deadlock: Analyze runs it for --patterns deadlock and all, not for race", "[deadlock]") {
  TraceBuilder b;
  Nest(b, 1, kA, kB, 1, 2);
  Nest(b, 2, kB, kA, 3, 4);
  pecan::AnalysisOptions options;
  options.threads = 1;
  for (const char* spec : {"deadlock", "all", ""}) {
    options.patterns = spec;
    const pecan::AnalysisResult result = pecan::Analyze(b.trace(), options);
    INFO(spec);
    REQUIRE(result.findings.size() >= 1);
    CHECK(result.findings.back().pattern == "deadlock");
    CHECK(result.findings.back().id.rfind("deadlock-", 0) == 0);
  }
  options.patterns = "race";
  for (const Finding& f : pecan::Analyze(b.trace(), options).findings)
    CHECK(f.pattern != "deadlock");
}
