// The generator on hand-made findings of every shape: observed findings keep the recorded
// prefix, condition waits and forks inside critical sections, nested locks, rwlocks, events
// needed from after the anomaly, two-location ASV, user patterns, and the shapes that have no
// feasible clip (each with its reason).
#include <catch2/catch.hpp>

#include <numeric>

#include "analyzer/por_index.h"
#include "schedgen/schedule_generator.h"
#include "std_trace.h"

namespace pecan {
namespace {

using test::StdTrace;
using Steps = std::vector<EventIndex>;

Finding MakeFinding(const std::string& pattern, std::vector<EventIndex> events,
                    bool observed = false) {
  Finding f;
  f.id = pattern + "-shape";
  f.pattern = pattern;
  f.events = std::move(events);
  f.observed = observed;
  f.adjacent = pattern == "race";  // as the built-in race pattern declares
  return f;
}

struct Generated {
  Trace trace;
  ClipPlan plan;
};

Generated Generate(const std::string& std_text, const Finding& finding) {
  Generated g{StdTrace(std_text), {}};
  PorIndex por(g.trace);
  g.plan = ScheduleGenerator(g.trace, por).Generate(finding);
  return g;
}

TEST_CASE("an observed finding's clip is the recorded prefix up to its last event",
          "[schedgen][shapes]") {
  // T0 reads x, T1 writes x, T0 reads x again: R-W-R in the recorded order.
  const std::string text =
      "T0|fork(T1)|1\n"
      "T0|acq(l)|2\n"
      "T0|r(x)|3\n"
      "T1|w(x)|4\n"
      "T0|r(x)|5\n"
      "T0|rel(l)|6\n"
      "T0|join(T1)|7\n";
  const auto g = Generate(text, MakeFinding("atomicity", {2, 3, 4}, /*observed=*/true));
  INFO(g.plan.reason);
  REQUIRE(g.plan.ok);
  CHECK(g.plan.steps == Steps{0, 1, 2, 3, 4});
  CHECK(g.plan.moved_steps.empty());
  CHECK(g.plan.generator == "observed-atomicity");
  // An observed race already back to back: the prefix too.
  const auto race = Generate(text, MakeFinding("race", {3, 4}, true));
  REQUIRE(race.plan.ok);
  CHECK(race.plan.steps == Steps{0, 1, 2, 3, 4});
}

TEST_CASE("condition waits: the notify stays before the woken thread's events",
          "[schedgen][shapes]") {
  // T1 waits on c (rel m, wait c, acq m as recorded); T0 notifies under m.
  const std::string text =
      "T0|fork(T1)|0\n"
      "T1|acq(m)|1\n"
      "T1|rel(m)|2\n"
      "T0|w(x)|3\n"
      "T0|acq(m)|4\n"
      "T0|notify(c)|5\n"
      "T0|rel(m)|6\n"
      "T1|wait(c)|7\n"
      "T1|acq(m)|8\n"
      "T1|rel(m)|9\n"
      "T1|r(x)|10\n"
      "T0|w(x)|11\n";
  // T0's write before the notify is ordered before T1's read: a false race, no clip.
  auto g = Generate(text, MakeFinding("race", {3, 10}));
  CHECK_FALSE(g.plan.ok);
  CHECK_THAT(g.plan.reason, Catch::Contains("by POR"));
  // T0's later write can run right before T1's read; the notify stays where it was.
  g = Generate(text, MakeFinding("race", {11, 10}));
  INFO(g.plan.reason);
  REQUIRE(g.plan.ok);
  CHECK(g.plan.steps == Steps{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 10});
  CHECK(g.plan.moved_steps == std::vector<uint64_t>{11});
}

TEST_CASE("a fork inside the OML block: the child's events wait for it", "[schedgen][shapes]") {
  // PECAN's Algorithm 3 taken literally moves T0's block (acq l .. w(x)) in front of T1's w(x)
  // and leaves T2's events, which depend on the fork inside the block, in front of the fork.
  const std::string text =
      "T0|fork(T1)|0\n"
      "T0|acq(l)|1\n"
      "T0|fork(T2)|2\n"
      "T0|w(x)|3\n"
      "T0|rel(l)|4\n"
      "T2|r(z)|5\n"
      "T1|acq(l)|6\n"
      "T1|rel(l)|7\n"
      "T1|w(x)|8\n";
  const auto g = Generate(text, MakeFinding("race", {3, 8}));
  INFO(g.plan.reason);
  REQUIRE(g.plan.ok);
  CHECK(g.plan.steps == Steps{0, 6, 7, 1, 2, 3, 8});
  CHECK(g.plan.generator == "race+oml");
}

TEST_CASE("nested locks: only the contended lock's section moves", "[schedgen][shapes]") {
  // T0 holds L around everything and takes K inside; T1 takes K (not L) before its write. T0's
  // K section is over before the race, so nothing needs to move but T0's write.
  const std::string text =
      "T0|fork(T1)|0\n"
      "T0|acq(L)|1\n"
      "T0|acq(K)|2\n"
      "T0|rel(K)|3\n"
      "T0|w(x)|4\n"
      "T0|rel(L)|5\n"
      "T1|acq(K)|6\n"
      "T1|w(x)|7\n"
      "T1|rel(K)|8\n";
  const auto g = Generate(text, MakeFinding("race", {4, 7}));
  INFO(g.plan.reason);
  REQUIRE(g.plan.ok);
  CHECK(g.plan.steps == Steps{0, 1, 2, 3, 6, 4, 7});
  CHECK(g.plan.generator == "race");
}

TEST_CASE("rwlock readers share: no section moves for a reader", "[schedgen][shapes]") {
  const std::string text =
      "T0|fork(T1)|0\n"
      "T0|racq(rw)|1\n"
      "T0|r(x)|2\n"
      "T0|rrel(rw)|3\n"
      "T1|racq(rw)|4\n"
      "T1|rrel(rw)|5\n"
      "T1|w(x)|6\n";
  const auto g = Generate(text, MakeFinding("race", {2, 6}));
  INFO(g.plan.reason);
  REQUIRE(g.plan.ok);
  CHECK(g.plan.steps == Steps{0, 1, 4, 5, 2, 6});
}

TEST_CASE("an event recorded after the anomaly is run when the anomaly needs it",
          "[schedgen][shapes]") {
  // R-W-R with the second read inside T0's critical section on l and the write inside T1's:
  // T1 must release l (#6, recorded after the write) before T0 can take it for its read.
  const std::string text =
      "T0|r(x)|0\n"
      "T0|acq(l)|1\n"
      "T0|r(x)|2\n"
      "T0|rel(l)|3\n"
      "T1|acq(l)|4\n"
      "T1|w(x)|5\n"
      "T1|rel(l)|6\n";
  const auto g = Generate(text, MakeFinding("atomicity", {0, 5, 2}));
  INFO(g.plan.reason);
  REQUIRE(g.plan.ok);
  CHECK(g.plan.steps == Steps{0, 4, 5, 6, 1, 2});
  CHECK(g.plan.anomaly_steps == std::vector<uint64_t>{0, 2, 5});
}

TEST_CASE("two-location ASV: the interleaving unit's events go between", "[schedgen][shapes]") {
  // W(l1) W'(l1) W'(l2) W(l2): T0's unit writes a then b under m; T1 writes a, b without m.
  const std::string text =
      "T0|fork(T1)|0\n"
      "T0|acq(m)|1\n"
      "T0|w(a)|2\n"
      "T0|w(b)|3\n"
      "T0|rel(m)|4\n"
      "T1|w(a)|5\n"
      "T1|w(b)|6\n";
  Finding f = MakeFinding("asv", {2, 5, 6, 3});
  f.variant = "W(l1) W'(l1) W'(l2) W(l2)";
  const auto g = Generate(text, f);
  INFO(g.plan.reason);
  REQUIRE(g.plan.ok);
  CHECK(g.plan.steps == Steps{0, 1, 2, 5, 6, 3});
  CHECK(g.plan.anomaly_steps == std::vector<uint64_t>{2, 3, 4, 5});
  CHECK(g.plan.generator == "asv");
}

TEST_CASE("user patterns use the same machinery", "[schedgen][shapes]") {
  const std::string text =
      "T0|w(a)|0\n"
      "T0|w(b)|1\n"
      "T1|r(b)|2\n"
      "T1|r(a)|3\n";
  // "Reader sees b's new value but a's old one": T1's r(a) before T0's w(a), T0's w(b) before
  // T1's r(b).
  const auto g = Generate(text, MakeFinding("stale-pair", {3, 0, 1, 2}));
  // r(a) #3 comes after r(b) #2 in T1: the order asks #3 before #2 — program order forbids it.
  CHECK_FALSE(g.plan.ok);
  CHECK_THAT(g.plan.reason, Catch::Contains("must run before"));
  const auto h = Generate(text, MakeFinding("stale-pair", {2, 0, 1, 3}));
  INFO(h.plan.reason);
  REQUIRE(h.plan.ok);
  CHECK(h.plan.steps == Steps{2, 0, 1, 3});
  CHECK(h.plan.generator == "pattern:stale-pair");
}

TEST_CASE("findings with no feasible clip say why", "[schedgen][shapes]") {
  const std::string text =
      "T0|w(x)|0\n"
      "T0|fork(T1)|1\n"
      "T1|r(x)|2\n";
  // The write happens before the fork, the read after it: never back to back.
  auto g = Generate(text, MakeFinding("race", {0, 2}));
  CHECK_FALSE(g.plan.ok);
  CHECK_THAT(g.plan.reason, Catch::Contains("ordered before") && Catch::Contains("by POR"));
  g = Generate(text, MakeFinding("race", {}));
  CHECK_THAT(g.plan.reason, Catch::Contains("no events"));
  g = Generate(text, MakeFinding("race", {0, 0}));
  CHECK_THAT(g.plan.reason, Catch::Contains("twice"));
  g = Generate(text, MakeFinding("race", {0, 99}));
  CHECK_THAT(g.plan.reason, Catch::Contains("not in the trace"));
  // Both writes hold l, so they are never back to back.
  g = Generate(
      "T0|acq(l)|0\n"
      "T0|w(x)|1\n"
      "T0|rel(l)|2\n"
      "T1|acq(l)|3\n"
      "T1|w(x)|4\n"
      "T1|rel(l)|5\n",
      MakeFinding("race", {1, 4}));
  CHECK_FALSE(g.plan.ok);
  CHECK_THAT(g.plan.reason, Catch::Contains("lock"));
}

}  // namespace
}  // namespace pecan
