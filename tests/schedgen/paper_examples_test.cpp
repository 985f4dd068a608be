// PECAN's worked examples of schedule generation (section 6): Figure 4 (the dependent event moves
// along), Figure 5 (the outermost lock's block moves), and Figure 3's atomicity violation.
// The figures themselves are not in our copy of the paper; the traces are rebuilt from the text
// (event numbers v1..v8 are line numbers, which are also the STD locations).
#include <catch2/catch.hpp>

#include "analyzer/por_index.h"
#include "schedgen/pattern_scheduler.h"
#include "schedgen/schedule_generator.h"
#include "std_trace.h"

namespace pecan {
namespace {

using test::StdTrace;

// v_n is event index n-1.
constexpr EventIndex v(int n) {
  return static_cast<EventIndex>(n - 1);
}

Finding Race(EventIndex a, EventIndex b) {
  Finding f;
  f.id = "race-test";
  f.pattern = "race";
  f.variant = "W-W";
  f.adjacent = true;
  f.events = {a, b};
  return f;
}

TEST_CASE("Figure 4: the event depending on v_i moves behind v_j and is cut", "[schedgen][paper]") {
  // T0 = v1 v2 v3, T1 = v4 v5 v6; (v2, v5) race on x; v3 depends on v2 by program order.
  const Trace trace = StdTrace(
      "T0|w(y)|1\n"
      "T0|w(x)|2\n"
      "T0|r(x)|3\n"
      "T1|r(y)|4\n"
      "T1|w(x)|5\n"
      "T1|w(z)|6\n");
  PorIndex por(trace);
  ScheduleGenerator generator(trace, por);
  const ClipPlan plan = generator.Generate(Race(v(2), v(5)));
  INFO(plan.reason);
  REQUIRE(plan.ok);
  // Naively moving v2 alone next to v5 would leave v3 before v2; v3 goes behind v5 instead and
  // falls off with v6 when the schedule is cut after v5.
  CHECK(plan.steps == std::vector<EventIndex>{v(1), v(4), v(2), v(5)});
  CHECK(plan.anomaly_steps == std::vector<uint64_t>{2, 3});
  CHECK(plan.moved_steps == std::vector<uint64_t>{2});
  CHECK(plan.generator == "race");
}

// Figure 5: T0 = v1 acq(l) v2 v3 v4 rel(l); T1 = v5 v6 acq(l) v7 rel(l) v8. (v3, v8) race on x.
const char* kFigure5 =
    "T0|acq(l)|1\n"
    "T0|%s|2\n"
    "T0|w(x)|3\n"
    "T0|rel(l)|4\n"
    "T1|%s|5\n"
    "T1|acq(l)|6\n"
    "T1|rel(l)|7\n"
    "T1|w(x)|8\n";

std::string Figure5(const char* v2, const char* v5) {
  char buffer[256];
  std::snprintf(buffer, sizeof(buffer), kFigure5, v2, v5);
  return buffer;
}

TEST_CASE("Figure 5: with v2->v5 absent, the OML block moves before v8", "[schedgen][paper]") {
  const Trace trace = StdTrace(Figure5("w(y)", "r(z)"));
  PorIndex por(trace);
  ScheduleGenerator generator(trace, por);
  const ClipPlan plan = generator.Generate(Race(v(3), v(8)));
  INFO(plan.reason);
  REQUIRE(plan.ok);
  // Moving only v3 (and the dependent unlock v4) would leave T0 holding l while T1 takes it:
  // v1 v2 v5 v6 v7 v3 v8 breaks the lock constraint. The OML v1 moves with its block.
  CHECK(plan.steps == std::vector<EventIndex>{v(5), v(6), v(7), v(1), v(2), v(3), v(8)});
  CHECK(plan.anomaly_steps == std::vector<uint64_t>{5, 6});
  CHECK(plan.moved_steps == std::vector<uint64_t>{3, 4, 5});
  CHECK(plan.generator == "race+oml");
}

TEST_CASE("Figure 5: with the order v2->v5 the race is false and gets no clip",
          "[schedgen][paper]") {
  // v2 -> v5 as a user happens-before annotation (any POR edge would do).
  const Trace trace = StdTrace(Figure5("hbrel(k)", "hbacq(k)"));
  PorIndex por(trace);
  REQUIRE(por.Ordered(v(2), v(5)));
  REQUIRE(por.Concurrent(v(3), v(8)));  // the race still passes the mutation condition
  ScheduleGenerator generator(trace, por);
  const ClipPlan plan = generator.Generate(Race(v(3), v(8)));
  CHECK_FALSE(plan.ok);
  CHECK(plan.steps.empty());
  CHECK_THAT(plan.reason, Catch::Contains("lock"));
}

// Figure 3 (rebuilt): T0 runs v1..v6 in one critical section on m; its accesses v2 (read x) and
// v5 (write x) are one atomic region. T1's write v8 of x can only run after v3, which it waits
// for (v3 -> v7); v4 is the v_x the search finds, with no POR or common lock with v8.
const char* kFigure3 =
    "T0|acq(m)|1\n"
    "T0|r(x)|2\n"
    "T0|hbrel(k)|3\n"
    "T0|w(y)|4\n"
    "T0|w(x)|5\n"
    "T0|rel(m)|6\n"
    "T1|hbacq(k)|7\n"
    "T1|w(x)|8\n";

Finding Figure3Finding() {
  Finding f;
  f.id = "atomicity-test";
  f.pattern = "atomicity";
  f.variant = "R-W-W";
  f.events = {v(2), v(8), v(5)};
  f.overtaken = {v(4)};
  return f;
}

TEST_CASE("Figure 3: the atomicity violation (v2, v8, v5) gets v8 between v2 and v5",
          "[schedgen][paper]") {
  const Trace trace = StdTrace(kFigure3);
  PorIndex por(trace);
  ScheduleGenerator generator(trace, por);
  const ClipPlan plan = generator.Generate(Figure3Finding());
  INFO(plan.reason);
  REQUIRE(plan.ok);
  // Only v5 has to wait for v8; v4 keeps its recorded place (fewer moves than Algorithm 4).
  CHECK(plan.steps == std::vector<EventIndex>{v(1), v(2), v(3), v(4), v(7), v(8), v(5)});
  CHECK(plan.anomaly_steps == std::vector<uint64_t>{1, 5, 6});
  CHECK(plan.generator == "atomicity");
}

TEST_CASE("Figure 3: holding back the overtaken v_x gives Algorithm 4's schedule",
          "[schedgen][paper]") {
  const Trace trace = StdTrace(kFigure3);
  PorIndex por(trace);
  PatternScheduler scheduler(trace, por);
  const Finding f = Figure3Finding();
  // Algorithm 4: move v_x = v4 and what depends on it behind v_k = v8.
  const SchedulerResult r = scheduler.Build(PatternOrderOf(f), {{v(4), v(8)}});
  INFO(r.reason);
  REQUIRE(r.ok);
  CHECK(r.steps == std::vector<EventIndex>{v(1), v(2), v(3), v(7), v(8), v(4), v(5)});
  ScheduleValidator validator(trace, por);
  CHECK(validator.Check(r.steps, PatternOrderOf(f)).ok);
}

TEST_CASE("Figure 3: v8 cannot overtake v3, so v3's order is kept", "[schedgen][paper]") {
  const Trace trace = StdTrace(kFigure3);
  PorIndex por(trace);
  PatternScheduler scheduler(trace, por);
  // Asking for v8 before v3 contradicts the POR v3 -> v7 -> v8.
  const SchedulerResult r = scheduler.Build(PatternOrder{{v(2), v(8), v(3)}, false});
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("POR"));
}

}  // namespace
}  // namespace pecan
