// PECAN's worked examples (Figures 1, 3 and 5) as STD traces run through Analyze().
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "analyzer/analysis.h"
#include "std_trace.h"
#include "streamed.h"

using pecan::AnalysisOptions;
using pecan::Analyze;
using pecan::EventIndex;
using pecan::Finding;
using pecan::testing::StdTrace;

namespace {

std::vector<const Finding*> Of(const std::vector<Finding>& findings, const std::string& pattern) {
  std::vector<const Finding*> out;
  for (const Finding& f : findings) {
    if (f.pattern == pattern) out.push_back(&f);
  }
  return out;
}

AnalysisOptions Patterns(const std::string& spec) {
  AnalysisOptions o;
  o.patterns = spec;
  return o;
}

}  // namespace

TEST_CASE("PECAN Figure 1: three races, (3,7) in its harmful order only by reordering",
          "[analysis][paper]") {
  // Events: 0 fork, 1 w(y)@5, 2 w(y)@2, 3 r(x)@3, 4 r(y)@6, 5 w(x)@7.
  const pecan::Trace trace = StdTrace(pecan::testing::kPecanFigure1);
  const auto result = Analyze(trace, Patterns("race"));
  const auto races = Of(result.findings, "race");
  REQUIRE(races.size() == 3);
  CHECK(races[0]->events == std::vector<EventIndex>{1, 2});  // (5,2) W-W
  CHECK(races[0]->variant == "W-W");
  CHECK(races[1]->events == std::vector<EventIndex>{2, 4});  // (2,6) W-R
  CHECK(races[1]->variant == "W-R");
  CHECK(races[2]->events == std::vector<EventIndex>{3, 5});  // (3,7) R-W
  CHECK(races[2]->variant == "R-W");
  for (const Finding* f : races) {
    CHECK(f->observed);
    CHECK(f->id.rfind("race-", 0) == 0);
    CHECK(f->reason.find("no common lock") != std::string::npos);
  }

  // The harmful order, 7's write of x right before 3's read, as a user pattern: only a
  // reordering of the recorded run shows it.
  const std::string path =
      (std::filesystem::temp_directory_path() / "pecan-figure1-patterns.txt").string();
  {
    std::ofstream out(path);
    out << "# x is written by one thread and then read by another, back to back\n"
           "pattern write-then-read { T: t1 t2; SV: s s; AR: u1 u2; AT: w r; adjacent; }\n";
  }
  const auto user = Analyze(trace, Patterns(path));
  bool predicted_7_3 = false;
  for (const Finding& f : user.findings) {
    if (f.events == std::vector<EventIndex>{5, 3}) predicted_7_3 = !f.observed;
  }
  CHECK(predicted_7_3);
  std::filesystem::remove(path);
}

TEST_CASE("PECAN Figure 3: atomicity violation found by overtaking v_x = v4", "[analysis][paper]") {
  // T0's annotated region reads x (v2) and later writes it (v5) holding n; T1 writes x holding n
  // after the region. v5 and v8 share n, so v8 cannot move in front of v5 — but it can move in
  // front of v4 (T0's acquisition of n).
  const pecan::Trace trace = StdTrace(R"(T0|fork(T1)|0
T0|begin(r)|1
T0|r(x)|2
T0|w(z)|3
T0|acq(n)|4
T0|w(x)|5
T0|rel(n)|6
T0|end(r)|7
T1|acq(n)|8
T1|w(x)|9
T1|rel(n)|10
)");
  // Indices: v2 = 2, v4 = 4, v5 = 5, v8 = 9.
  const auto result = Analyze(trace, Patterns("atomicity"));
  const auto found = Of(result.findings, "atomicity");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->variant == "R-W-W");
  CHECK(found[0]->events == std::vector<EventIndex>{2, 9, 5});
  CHECK_FALSE(found[0]->observed);
  CHECK(found[0]->overtaken == std::vector<EventIndex>{4});
  CHECK(found[0]->reason.find("just before") != std::string::npos);
  // The streaming search finds the same (it checks itself against Analyze).
  const std::vector<pecan::Finding> streamed = pecan::test::Streamed(trace, "atomicity");
  REQUIRE(streamed.size() == 1);
  CHECK(streamed[0].events == found[0]->events);
}

TEST_CASE("PECAN Figure 5: the hybrid model predicts the (v3, v8) race", "[analysis][paper]") {
  // v2 -> v5 is a POR edge (here a happens-before annotation); v3 holds l, v8 holds nothing.
  const pecan::Trace trace = StdTrace(R"(T0|acq(l)|1
T0|hbrel(k)|2
T0|w(x)|3
T0|rel(l)|4
T1|hbacq(k)|5
T1|acq(l)|6
T1|rel(l)|7
T1|r(x)|8
)");
  const auto result = Analyze(trace, Patterns("race"));
  const auto races = Of(result.findings, "race");
  REQUIRE(races.size() == 1);
  CHECK(races[0]->events == std::vector<EventIndex>{2, 7});
  CHECK(races[0]->variant == "W-R");
}
