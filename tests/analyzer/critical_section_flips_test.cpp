// Critical-section flips: consecutive sections of one lock by different threads that conflict
// give a flip (later section's access first); no flip without a conflict, for one thread's own
// sections, for rwlocks, or where the partial order fixes the sections' order; one per site pair.
#include <catch2/catch.hpp>

#include "analyzer/critical_section_flips.h"
#include "std_trace.h"

using pecan::EventIndex;
using pecan::Finding;
using pecan::FindCriticalSectionFlips;
using pecan::PorIndex;
using pecan::Trace;
using pecan::testing::StdTrace;

namespace {

std::vector<Finding> Flips(const Trace& trace) {
  const PorIndex por(trace);
  return FindCriticalSectionFlips(trace, por);
}

}  // namespace

TEST_CASE("Flips: a check in one section and an act in the next, by another thread",
          "[flip]") {
  // T1 reads the balance in one section, T2 withdraws in the next: the flip runs T2's section
  // first, b = T2's w(balance), a = T1's r(balance).
  const Trace trace = StdTrace(R"(T0|fork(T1)|1
T0|fork(T2)|2
T1|acq(l)|10
T1|r(balance)|11
T1|rel(l)|12
T2|acq(l)|20
T2|r(balance)|21
T2|w(balance)|22
T2|rel(l)|23
)");
  const auto flips = Flips(trace);
  REQUIRE(flips.size() == 1);
  CHECK(flips[0].pattern == "flip");
  CHECK(flips[0].variant == "W-R");
  CHECK(flips[0].events == std::vector<EventIndex>{7, 3});
  CHECK(flips[0].id.rfind("flip-", 0) == 0);
  CHECK_FALSE(flips[0].adjacent);
}

TEST_CASE("Flips: none without a conflict, for one thread, or for reads only", "[flip]") {
  CHECK(Flips(StdTrace(R"(T0|fork(T1)|1
T0|acq(l)|2
T0|w(x)|3
T0|rel(l)|4
T1|acq(l)|10
T1|w(y)|11
T1|rel(l)|12
)")).empty());
  CHECK(Flips(StdTrace(R"(T0|fork(T1)|1
T0|acq(l)|2
T0|r(x)|3
T0|rel(l)|4
T1|acq(l)|10
T1|r(x)|11
T1|rel(l)|12
)")).empty());
  CHECK(Flips(StdTrace(R"(T0|acq(l)|2
T0|w(x)|3
T0|rel(l)|4
T0|acq(l)|5
T0|r(x)|6
T0|rel(l)|7
)")).empty());
}

TEST_CASE("Flips: none where the partial order fixes the order, or on rwlocks", "[flip]") {
  // T1 starts after T0's section (the fork): its section cannot run first.
  CHECK(Flips(StdTrace(R"(T0|acq(l)|2
T0|w(x)|3
T0|rel(l)|4
T0|fork(T1)|5
T1|acq(l)|10
T1|r(x)|11
T1|rel(l)|12
)")).empty());
  CHECK(Flips(StdTrace(R"(T0|fork(T1)|1
T0|acq(rw)|2
T0|w(x)|3
T0|rel(rw)|4
T1|racq(rw)|10
T1|r(x)|11
T1|rrel(rw)|12
)")).empty());
}

TEST_CASE("Flips: one per pair of sites, counting the section pairs merged", "[flip]") {
  // Two rounds of the same two sections (same sites): one flip with two witnesses.
  const Trace trace = StdTrace(R"(T0|fork(T1)|1
T0|acq(l)|2
T0|w(x)|3
T0|rel(l)|4
T1|acq(l)|10
T1|r(x)|11
T1|rel(l)|12
T0|acq(l)|2
T0|w(x)|3
T0|rel(l)|4
T1|acq(l)|10
T1|r(x)|11
T1|rel(l)|12
)");
  const auto flips = Flips(trace);
  REQUIRE(flips.size() == 2);  // T1 after T0 (R-W), then T0 after T1 (W-R)
  CHECK(flips[0].variant == "R-W");
  CHECK(flips[0].witnesses == 2);
  CHECK(flips[1].variant == "W-R");
  CHECK(flips[1].witnesses == 1);
}
