// The text report: compiler-style warning + notes per finding, STD sites as "loc N".
#include <catch2/catch.hpp>

#include <sstream>

#include "analyzer/report_events.h"
#include "report_fixture.h"
#include "tests/support/text_lines.h"
#include "trace_format/error.h"
#include "trace_format/std_format.h"

using namespace pecan;
using namespace pecan::test;

namespace {

using pecan::test::Lines;

bool HasLine(const std::string& text, const std::string& line) {
  for (const std::string& l : Lines(text))
    if (l == line) return true;
  return false;
}

Trace Std(const std::string& text) {
  std::istringstream in(text);
  return ImportStd(in, "test.std");
}

}  // namespace

TEST_CASE("text report: a race as a warning with a note per event and the reason") {
  std::string text = TextReport(FixtureTrace(), FixtureResult());
  INFO(text);
  CHECK(HasLine(text,
                "loc 4: warning: data race on 'counter' (write by T0 / write by T1) "
                "[race W-W]"));
  CHECK(HasLine(text, "loc 4: note: T0 writes 'counter' here (event 3), holding {m}"));
  CHECK(HasLine(text, "loc 6: note: T1 writes 'counter' here (event 5), holding no lock"));
  CHECK(HasLine(text,
                "loc 4: note: observed in the recorded order: no common lock and no "
                "happens-before order between the accesses"));
}

TEST_CASE("text report: a predicted atomicity violation lists its three events in order") {
  std::string text = TextReport(FixtureTrace(), FixtureResult());
  INFO(text);
  CHECK(HasLine(text,
                "loc 3: warning: atomicity violation on 'counter' (read by T0, write by "
                "T1, write by T0) [atomicity R-W-W]"));
  CHECK(HasLine(text, "loc 3: note: T0 reads 'counter' here (event 2), holding {m}"));
  CHECK(HasLine(text, "loc 4: note: reordered around T0's write of 'counter' here (event 3)"));
  CHECK(HasLine(text,
                "loc 3: note: predicted (not in the recorded order): T1's write #5 can "
                "run just before T0's write #3 (3 similar matches)"));
  // The race's notes come before the atomicity warning: findings stay in the analyzer's order.
  CHECK(text.find("[race W-W]") < text.find("[atomicity R-W-W]"));
}

TEST_CASE("text report ends with the summary line") {
  std::string text = TextReport(FixtureTrace(), FixtureResult());
  CHECK(Lines(text).back() == "2 findings: 1 race, 1 atomicity, 0 asv; 1 observed, 1 predicted");
  AnalysisResult none;
  CHECK(TextReport(FixtureTrace(), none) ==
        "0 findings: 0 races, 0 atomicity, 0 asv; 0 observed, 0 predicted\n");
}

TEST_CASE("text report: STD labels, thread names, read locks and asv on two variables") {
  Trace trace =
      Std("main|racq(rw)|a.c:10\n"
          "main|w(x)|a.c:11\n"
          "main|w(y)|a.c:12\n"
          "main|rrel(rw)|a.c:13\n"
          "worker|r(x)|b.c:20\n"
          "worker|r(y)|b.c:21\n");
  AnalysisResult result;
  Finding asv;
  asv.id = "asv-1";
  asv.pattern = "asv";
  asv.variant = "W(l1) R'(l1) R'(l2) W(l2)";
  asv.events = {1, 4, 5, 2};
  asv.reason = "the reader's accesses can run between the writes";
  result.findings = {asv};
  std::string text = TextReport(trace, result);
  INFO(text);
  CHECK(HasLine(text,
                "a.c:11: warning: atomic-set serializability violation on 'x' and 'y' "
                "(write by main, read by worker, read by worker, write by main) "
                "[asv W(l1) R'(l1) R'(l2) W(l2)]"));
  CHECK(HasLine(text, "a.c:11: note: main writes 'x' here (event 1), holding {rw (read)}"));
  CHECK(HasLine(text, "b.c:21: note: worker reads 'y' here (event 5), holding no lock"));
  CHECK(Lines(text).back() == "1 finding: 0 races, 0 atomicity, 1 asv; 0 observed, 1 predicted");
}

TEST_CASE("text report: user patterns are counted as other") {
  AnalysisResult result = FixtureResult();
  result.findings[1].pattern = "my-pattern";
  std::string text = TextReport(FixtureTrace(), result);
  CHECK(text.find("warning: 'my-pattern' pattern on 'counter'") != std::string::npos);
  CHECK(Lines(text).back() ==
        "2 findings: 1 race, 0 atomicity, 0 asv, 1 other; 1 observed, 1 predicted");
}

TEST_CASE("text report: a finding naming an event outside the trace is a clear error") {
  AnalysisResult result = FixtureResult();
  result.findings[0].events = {3, 99};
  CHECK_THROWS_WITH(TextReport(FixtureTrace(), result),
                    Catch::Contains("finding names event 99 but the trace has 7 events"));
}

TEST_CASE("text report of the analyzer's own findings has one warning per finding") {
  Trace trace = FixtureTrace();
  AnalysisResult result = Analyze(trace, AnalysisOptions{});
  REQUIRE_FALSE(result.findings.empty());
  std::string text = TextReport(trace, result);
  size_t warnings = 0;
  for (const std::string& line : Lines(text))
    if (line.find(": warning: ") != std::string::npos) ++warnings;
  CHECK(warnings == result.findings.size());
  CHECK(Lines(text).back() == SummaryLine(Summarize(result)));
}
