// What the hybrid model lets through and what it blocks, end to end through Analyze(): read-mode
// locks, allocation versions, barriers, semaphores, atomics, and the race filters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "analyzer/analysis.h"
#include "std_trace.h"

using pecan::AnalysisOptions;
using pecan::Analyze;
using pecan::EventIndex;
using pecan::testing::StdTrace;

namespace {

std::vector<std::vector<EventIndex>> Races(const std::string& std_text) {
  AnalysisOptions options;
  options.patterns = "race";
  std::vector<std::vector<EventIndex>> out;
  for (const auto& f : Analyze(StdTrace(std_text), options).findings) out.push_back(f.events);
  return out;
}

using Pairs = std::vector<std::vector<EventIndex>>;

}  // namespace

TEST_CASE("Races: read-mode locks do not exclude, write-mode locks do", "[analysis][model]") {
  CHECK(Races(R"(T0|racq(l)|1
T0|w(x)|2
T0|rrel(l)|3
T1|racq(l)|4
T1|w(x)|5
T1|rrel(l)|6
)") == Pairs{{1, 4}});
  CHECK(Races(R"(T0|racq(l)|1
T0|w(x)|2
T0|rrel(l)|3
T1|acq(l)|4
T1|w(x)|5
T1|rel(l)|6
)")
            .empty());
}

TEST_CASE("Races: FREE starts a new version of the address", "[analysis][model]") {
  const std::string reused = R"(T0|alloc(x,8)|1
T0|w(x)|2
T0|free(x,8)|3
T1|alloc(x,8)|4
T1|w(x)|5
)";
  CHECK(Races(reused).empty());
  // Without the free/alloc the same accesses race.
  CHECK(Races(R"(T0|w(x)|2
T1|w(x)|5
)") == Pairs{{0, 1}});
}

TEST_CASE("Races: a barrier orders the phases", "[analysis][model]") {
  CHECK(Races(R"(T0|w(x)|1
T0|barrier_arrive(b,2)|2
T1|barrier_arrive(b,2)|3
T1|barrier_depart(b,2)|4
T0|barrier_depart(b,2)|5
T1|r(x)|6
)")
            .empty());
  // T1's read before the barrier races with T0's write.
  CHECK(Races(R"(T0|w(x)|1
T1|r(x)|6
T0|barrier_arrive(b,2)|2
T1|barrier_arrive(b,2)|3
T1|barrier_depart(b,2)|4
T0|barrier_depart(b,2)|5
)") == Pairs{{0, 1}});
}

TEST_CASE("Races: semaphore post -> wait orders, an extra token does not", "[analysis][model]") {
  CHECK(Races(R"(T0|w(x)|1
T0|post(s)|2
T1|semwait(s)|3
T1|r(x)|4
)")
            .empty());
  // The first wait ran before any post (initial count 1): it is not ordered by the post.
  CHECK(Races(R"(T1|semwait(s)|3
T0|w(x)|1
T0|post(s)|2
T1|r(x)|4
)") == Pairs{{1, 3}});
}

TEST_CASE("Races: atomics synchronize but do not race with each other", "[analysis][model]") {
  CHECK(Races(R"(T0|astore(x,relaxed)|1
T1|astore(x,relaxed)|2
)")
            .empty());
  CHECK(Races(R"(T0|w(d)|1
T0|astore(f,release)|2
T1|aload(f,acquire)|3
T1|r(d)|4
)")
            .empty());
  CHECK(Races(R"(T0|w(d)|1
T0|astore(f,relaxed)|2
T1|aload(f,relaxed)|3
T1|r(d)|4
)") == Pairs{{0, 3}});
  // A plain access racing with an atomic one is a race.
  CHECK(Races(R"(T0|w(x)|1
T1|aload(x,seq_cst)|2
)") == Pairs{{0, 1}});
}

TEST_CASE("Races: reads only, or one thread only, are not races", "[analysis][model]") {
  CHECK(Races(R"(T0|r(x)|1
T1|r(x)|2
T0|w(y)|3
T0|r(y)|4
)")
            .empty());
}

TEST_CASE("Races: deduplicated by site pair, earliest witness, witnesses counted",
          "[analysis][model]") {
  AnalysisOptions options;
  options.patterns = "race";
  const auto result = Analyze(StdTrace(R"(T0|w(x)|1
T1|r(x)|2
T0|w(x)|1
T1|r(x)|2
T0|w(x)|1
T1|r(x)|2
)"),
                              options);
  // One W-R finding for sites (1,2), one R-W for (2,1).
  REQUIRE(result.findings.size() == 2);
  const auto& wr = result.findings[0].variant == "W-R" ? result.findings[0] : result.findings[1];
  CHECK(wr.variant == "W-R");
  CHECK(wr.events == std::vector<EventIndex>{0, 1});
  CHECK(wr.observed);
  CHECK(result.stats.shared_locations == 1);
  CHECK(result.stats.candidates >= 2);
}

TEST_CASE("Finding ids are stable and distinct", "[analysis][model]") {
  const std::string text = pecan::testing::kPecanFigure1;
  AnalysisOptions options;
  const auto a = Analyze(StdTrace(text), options);
  const auto b = Analyze(StdTrace(text), options);
  REQUIRE(a.findings.size() == b.findings.size());
  std::set<std::string> ids;
  for (size_t i = 0; i < a.findings.size(); ++i) {
    CHECK(a.findings[i].id == b.findings[i].id);
    ids.insert(a.findings[i].id);
  }
  CHECK(ids.size() == a.findings.size());
}

TEST_CASE("Statistics: events, shared locations and time by family", "[analysis][model]") {
  const auto result = Analyze(StdTrace("T0|w(x)|1\nT1|w(x)|2\nT1|w(y)|3\n"), AnalysisOptions{});
  CHECK(result.stats.events == 3);
  CHECK(result.stats.shared_locations == 1);
  std::set<std::string> families;
  for (const auto& [name, seconds] : result.stats.seconds_by_family) {
    families.insert(name);
    CHECK(seconds >= 0);
  }
  CHECK(families == std::set<std::string>{"index", "race", "atomicity", "asv", "deadlock"});
  CHECK(result.stats.seconds_total > 0);
}

TEST_CASE("Races: an observed pair is one witness, and the reason says what was observed",
          "[analysis][model]") {
  AnalysisOptions options;
  options.patterns = "race";
  const auto one = Analyze(StdTrace("T0|w(x)|1\nT1|w(x)|2\n"), options);
  REQUIRE(one.findings.size() == 1);
  CHECK(one.findings[0].observed);
  CHECK(one.findings[0].witnesses == 1);
  // No other access to x ran between them; other events did (a read of y), so the reason must
  // not claim they ran back to back.
  const auto apart = Analyze(StdTrace("T0|w(x)|1\nT0|r(y)|2\nT1|w(y)|3\nT1|w(x)|4\n"), options);
  const auto on_x = std::find_if(apart.findings.begin(), apart.findings.end(), [](const auto& f) {
    return f.events == std::vector<EventIndex>{0, 3};
  });
  REQUIRE(on_x != apart.findings.end());
  CHECK_THAT(
      on_x->reason,
      Catch::Contains("no other access to this location ran between them in the recorded run"));
  CHECK_THAT(on_x->reason, !Catch::Contains("back to back"));
  // Two observed pairs of the same sites are two witnesses.
  const auto twice = Analyze(StdTrace("T0|w(x)|1\nT1|w(x)|2\nT0|w(x)|1\nT1|w(x)|2\n"), options);
  const auto first = std::find_if(twice.findings.begin(), twice.findings.end(), [](const auto& f) {
    return f.events == std::vector<EventIndex>{0, 1};
  });
  REQUIRE(first != twice.findings.end());
  CHECK(first->witnesses == 2);
}
