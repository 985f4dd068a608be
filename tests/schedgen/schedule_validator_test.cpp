// The ScheduleValidator accepts feasible schedules and rejects each kind of infeasible one with a
// reason naming the broken rule: program order, a skipped event, a POR edge, a lock held twice,
// the pattern's order, a non-adjacent race.
#include <catch2/catch.hpp>

#include "analyzer/por_index.h"
#include "schedgen/schedule_validator.h"
#include "std_trace.h"

namespace pecan {
namespace {

using test::StdTrace;
using Steps = std::vector<EventIndex>;

// 0 T0 fork T1 | 1 T0 acq l | 2 T0 w x | 3 T0 rel l | 4 T1 acq l | 5 T1 r x | 6 T1 rel l
// 7 T1 w y | 8 T0 w y | 9 T0 join T1
const char* kTrace =
    "T0|fork(T1)|0\n"
    "T0|acq(l)|1\n"
    "T0|w(x)|2\n"
    "T0|rel(l)|3\n"
    "T1|acq(l)|4\n"
    "T1|r(x)|5\n"
    "T1|rel(l)|6\n"
    "T1|w(y)|7\n"
    "T0|w(y)|8\n"
    "T0|join(T1)|9\n";

struct Fixture {
  Trace trace = StdTrace(kTrace);
  PorIndex por{trace};
  ScheduleValidator validator{trace, por};
};

TEST_CASE("validator accepts the recorded order, its prefixes and legal reorderings",
          "[schedgen][validator]") {
  Fixture f;
  Steps all{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  CHECK(f.validator.CheckFeasible(all).ok);
  CHECK(f.validator.CheckFeasible({}).ok);
  CHECK(f.validator.CheckFeasible({0, 1, 2}).ok);
  // T1's critical section first, then T0's.
  CHECK(f.validator.CheckFeasible({0, 4, 5, 6, 1, 2, 3, 7, 8, 9}).ok);
  // A thread may stop inside a critical section at the end of a schedule.
  CHECK(f.validator.CheckFeasible({0, 4, 5}).ok);
  // The race on y, adjacent in either order.
  CHECK(f.validator.Check({0, 1, 2, 3, 4, 5, 6, 7, 8}, PatternOrder{{7, 8}, true}).ok);
  CHECK(f.validator.Check({0, 1, 2, 3, 4, 5, 6, 8, 7}, PatternOrder{{8, 7}, true}).ok);
}

TEST_CASE("validator rejects a schedule that breaks program order", "[schedgen][validator]") {
  Fixture f;
  const auto r = f.validator.CheckFeasible({0, 2, 1});
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("step 1") && Catch::Contains("program order"));
}

TEST_CASE("validator rejects a schedule that skips an event of a thread", "[schedgen][validator]") {
  Fixture f;
  // T0's acquisition (1) is skipped, its write (2) runs.
  const auto r = f.validator.CheckFeasible({0, 2});
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("runs before event 1"));
  // Running an event twice is caught too.
  CHECK_THAT(f.validator.CheckFeasible({0, 1, 1}).reason, Catch::Contains("runs twice"));
  CHECK_THAT(f.validator.CheckFeasible({0, 99}).reason, Catch::Contains("not in the trace"));
}

TEST_CASE("validator rejects a schedule that breaks a POR edge", "[schedgen][validator]") {
  Fixture f;
  // The child runs before its fork.
  auto r = f.validator.CheckFeasible({4, 0});
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("POR predecessor") && Catch::Contains("step 0"));
  // The fork is absent altogether.
  r = f.validator.CheckFeasible({4, 5});
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("is not in the schedule"));
  // The join runs before the child's last event.
  r = f.validator.CheckFeasible({0, 1, 2, 3, 4, 5, 6, 8, 9});
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("join"));
}

TEST_CASE("validator rejects a lock held by two threads at once", "[schedgen][validator]") {
  Fixture f;
  const auto r = f.validator.CheckFeasible({0, 1, 4});
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("step 2") && Catch::Contains("while T0 holds it"));
}

TEST_CASE("validator lets rwlock readers share and re-acquisitions nest", "[schedgen][validator]") {
  const Trace trace = StdTrace(
      "T0|racq(l)|0\n"
      "T0|rrel(l)|1\n"
      "T1|racq(l)|2\n"
      "T1|rrel(l)|3\n"
      "T1|acq(l)|4\n"
      "T1|acq(l)|5\n"
      "T1|rel(l)|6\n"
      "T1|rel(l)|7\n");
  PorIndex por(trace);
  ScheduleValidator validator(trace, por);
  CHECK(validator.CheckFeasible({0, 2, 1, 3}).ok);
  CHECK(validator.CheckFeasible({2, 3, 4, 5, 6, 7, 0, 1}).ok);
  // A writer still excludes a reader, and a recursive hold lasts until the outer release.
  CHECK_FALSE(validator.CheckFeasible({0, 2, 3, 4}).ok);
  CHECK_FALSE(validator.CheckFeasible({2, 3, 4, 5, 6, 0}).ok);
}

TEST_CASE("validator rejects the pattern's events missing or out of order",
          "[schedgen][validator]") {
  Fixture f;
  // An atomicity-shaped order 2 < 5 < 8 is not met when 8 runs first.
  const PatternOrder order{{2, 5, 8}, false};
  CHECK(f.validator.Check({0, 1, 2, 3, 4, 5, 6, 7, 8}, order).ok);
  auto r = f.validator.Check({0, 1, 2, 3, 8, 4, 5}, order);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("pattern event 3 of 3") &&
                           Catch::Contains("does not come after"));
  r = f.validator.Check({0, 1, 2, 3, 4, 5}, order);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.reason, Catch::Contains("is not in the schedule"));
}

TEST_CASE("validator rejects a race whose events are not adjacent", "[schedgen][validator]") {
  Fixture f;
  const auto r = f.validator.Check({0, 1, 8, 4, 5, 6, 7}, PatternOrder{{8, 5}, true});
  CHECK_FALSE(r.ok);  // 5 runs before 8 here: order first
  const auto r2 = f.validator.Check({0, 1, 2, 3, 4, 5, 6, 7, 8}, PatternOrder{{2, 5}, true});
  CHECK_FALSE(r2.ok);
  CHECK_THAT(r2.reason, Catch::Contains("not adjacent") && Catch::Contains("2 step(s)"));
  // The same order without the adjacency demand is fine.
  CHECK(f.validator.Check({0, 1, 2, 3, 4, 5, 6, 7, 8}, PatternOrder{{2, 5}, false}).ok);
}

}  // namespace
}  // namespace pecan
