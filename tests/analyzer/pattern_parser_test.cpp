// The pattern language: what parses, what a user pattern finds, and errors with line numbers.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "analyzer/analysis.h"
#include "analyzer/builtin_patterns.h"
#include "analyzer/pattern.h"
#include "std_trace.h"
#include "trace_format/error.h"

using pecan::AccessMatch;
using pecan::ParsePatterns;
using pecan::PecanError;

namespace {

// PATTERNS.md's check-then-act: T0 reads a flag and writes data in one region, T1 writes the
// data in between.
const char* const kCheckThenAct = R"(
pattern check-then-act {
  T:  t1 t2 t1;
  SV: flag data data;
  AR: u v u;
  AT: r w w;
}
)";

std::string WriteTemp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("pecan_analyzer_test_" + name);
  std::ofstream(path) << text;
  return path.string();
}

std::string ErrorOf(const std::string& text) {
  try {
    ParsePatterns(text, "p.txt");
  } catch (const PecanError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Pattern language: sequences, options, symbols", "[patterns][parser]") {
  const auto patterns = ParsePatterns(R"(
# comment
pattern lost-update variant "R W' W" {
  E:  read other write;   # names for messages
  T:  t1 t2 t1;
  SV: s s s;
  AR: u v u;
  AT: r w w;
}
pattern any2 { T: a b; SV: x x; AR: p q; AT: * w; adjacent; unordered; some-plain; }
)",
                                      "p.txt");
  REQUIRE(patterns.size() == 2);
  const auto& p = patterns[0];
  CHECK(p.name == "lost-update");
  CHECK(p.variant == "R W' W");
  CHECK(p.event_names == std::vector<std::string>{"read", "other", "write"});
  CHECK(p.thread == std::vector<uint32_t>{0, 1, 0});
  CHECK(p.region == std::vector<uint32_t>{0, 1, 0});
  CHECK(p.access ==
        std::vector<AccessMatch>{AccessMatch::kRead, AccessMatch::kWrite, AccessMatch::kWrite});
  CHECK(p.thread_count == 2);
  CHECK(p.source == "p.txt:3");
  CHECK_FALSE(p.adjacent);
  const auto& q = patterns[1];
  CHECK(q.variant == "*-W");
  CHECK(q.adjacent);
  CHECK(q.unordered);
  CHECK(q.some_plain);
}

TEST_CASE("Pattern language: errors name the line", "[patterns][parser]") {
  CHECK(ErrorOf("pattern a { T: t1 t2; SV: s s; AR: u v; AT: r x; }") ==
        "p.txt:1: access type 'x' is not r, w or *");
  CHECK(ErrorOf("\n\npattern a {\n T: t1 t2;\n SV: s s s;\n AR: u v;\n AT: r w;\n}") ==
        "p.txt:5: sequence SV has 3 entries but AT has 2");
  CHECK(ErrorOf("pattern a {\n T: t1 t2;\n SV: s s;\n AT: r w;\n}") ==
        "p.txt:1: pattern 'a' has no AR sequence");
  CHECK(ErrorOf("pattern a {\n T: t1 t2;\n SV: s s;\n AR: u u;\n AT: r w;\n}") ==
        "p.txt:4: events e1 and e2 share a region but not a thread");
  CHECK(ErrorOf("pattern a { T: t t; SV: s s; AR: u v; AT: r w; }") ==
        "p.txt:1: pattern 'a' needs at least two threads");
  CHECK(ErrorOf("pattern a {\n T: t1 t2;\n colour: red;\n}") ==
        "p.txt:3: unknown sequence or option 'colour' (expected E, T, SV, AR, AT, adjacent, "
        "unordered or some-plain)");
  CHECK(ErrorOf("pattern a { T: t1 t2; SV: s s; AR: u v; AT: r w;\n") ==
        "p.txt:2: pattern 'a' is not closed with '}'");
  CHECK(ErrorOf("patern a {}") == "p.txt:1: expected 'pattern' but found 'patern'");
  CHECK(ErrorOf("pattern a { T: t1 t2 t1; SV: s s s; AR: u v w; AT: r w r; unordered; }") ==
        "p.txt:1: 'unordered' is supported for 2-event patterns only");
  CHECK(ErrorOf("pattern a { T: t1 t2 t3 t1 t2 t3 t1; SV: s s s s s s s; AR: a b c d e f g; "
                "AT: r r r r r r r; }") ==
        "p.txt:1: pattern 'a' has 7 events; between 2 and 6 are supported");
  CHECK(ErrorOf("pattern a variant x { }") ==
        "p.txt:1: expected a quoted variant name after 'variant'");
  CHECK(ErrorOf("pattern a { T: t1 t2; @ }") == "p.txt:1: unexpected character '@'");
}

TEST_CASE("Pattern selection: families, files, unknown names", "[patterns][parser]") {
  CHECK(pecan::SelectPatterns("race").size() == 3);
  CHECK(pecan::SelectPatterns("atomicity").size() == 4);
  CHECK(pecan::SelectPatterns("asv").size() == 11);
  CHECK(pecan::SelectPatterns("").size() == 18);
  CHECK(pecan::SelectPatterns("all, race").size() == 18);
  CHECK_THROWS_WITH(pecan::SelectPatterns("races"),
                    Catch::Contains("'races' is neither a built-in family"));
  const std::string bad = WriteTemp("bad.txt", "pattern x {\n  T: a b;\n  AT: r;\n}\n");
  CHECK_THROWS_WITH(pecan::SelectPatterns(bad), Catch::Contains(bad + ":1: pattern 'x' has no SV"));
  const std::string dup =
      WriteTemp("dup.txt", "pattern race variant \"W-R\" { T: a b; SV: s s; AR: u v; AT: w r; }\n");
  CHECK_THROWS_WITH(pecan::SelectPatterns("race," + dup),
                    Catch::Contains(dup + ":1: pattern 'race' variant 'W-R' is already defined"));
  const std::string empty = WriteTemp("empty.txt", "# nothing\n");
  CHECK_THROWS_WITH(pecan::SelectPatterns(empty), Catch::Contains(":1: no pattern defined"));
}

TEST_CASE("A user pattern from a file is found", "[patterns][analysis]") {
  // Check-then-act across two variables: T0 reads the flag and then writes the data in one
  // region, T1 writes the data in between.
  const std::string path = WriteTemp("user.txt", kCheckThenAct);
  const auto trace = pecan::testing::StdTrace(R"(T0|fork(T1)|1
T0|acq(m)|2
T0|r(flag)|3
T0|w(data)|4
T0|rel(m)|5
T1|w(data)|6
T1|w(flag)|7
)");
  pecan::AnalysisOptions options;
  options.patterns = path;
  const auto result = pecan::Analyze(trace, options);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].pattern == "check-then-act");
  CHECK(result.findings[0].variant == "R-W-W");
  CHECK(result.findings[0].events == std::vector<pecan::EventIndex>{2, 5, 3});
  CHECK(result.findings[0].id.rfind("check-then-act-", 0) == 0);
  // Same shape, different variables for e2: no match on a single variable.
  const auto trace2 = pecan::testing::StdTrace(R"(T0|fork(T1)|1
T0|acq(m)|2
T0|r(flag)|3
T0|w(data)|4
T0|rel(m)|5
T1|w(flag)|6
)");
  CHECK(pecan::Analyze(trace2, options).findings.empty());
}

TEST_CASE("Two events of a region on one variable are consecutive accesses to it",
          "[patterns][analysis]") {
  // e1 and e4 read x in one region with only a read of y between them in the pattern: they must
  // be consecutive reads of x by T0, so the first read (event 2) cannot be e1 — the read at 3
  // comes between it and the read at 5.
  const std::string path = WriteTemp("reread.txt", R"(
pattern reread {
  T:  t1 t1 t2 t1;
  SV: x  y  x  x;
  AR: u  u  v  u;
  AT: r  r  w  r;
}
)");
  const auto trace = pecan::testing::StdTrace(R"(T0|fork(T1)|1
T0|acq(m)|2
T0|r(x)|3
T0|r(x)|4
T0|r(y)|5
T0|r(x)|6
T0|rel(m)|7
T1|w(x)|8
T1|w(y)|9
)");
  pecan::AnalysisOptions options;
  options.patterns = path;
  const auto result = pecan::Analyze(trace, options);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].events == std::vector<pecan::EventIndex>{3, 4, 7, 5});
}

TEST_CASE("An adjacent unordered user pattern on two variables", "[patterns][analysis]") {
  // Two writes to different variables by two threads that can run back to back: the race
  // sweep (one location) does not apply; a match lists the events in trace order.
  const std::string path = WriteTemp("pair.txt", R"(
pattern write-pair { T: a b; SV: x y; AR: u v; AT: w w; adjacent; unordered; }
)");
  const auto trace = pecan::testing::StdTrace(R"(T0|fork(T1)|1
T0|w(x)|2
T1|w(y)|3
T1|r(x)|4
T0|r(y)|5
)");
  pecan::AnalysisOptions options;
  options.patterns = path;
  const auto result = pecan::Analyze(trace, options);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].events == std::vector<pecan::EventIndex>{1, 2});
}

TEST_CASE("A user pattern's variable of one thread is not filtered away", "[patterns][analysis]") {
  // PATTERNS.md's check-then-act: only T0 touches the flag, which the classic pre-filter
  // ("drop locations touched by one thread only, or read only") would drop before any pattern
  // ran. The filter follows the selected patterns: this one needs a read location for `flag`.
  const std::string path = WriteTemp("check_then_act.txt", kCheckThenAct);
  const auto trace = pecan::testing::StdTrace(R"(T0|fork(T1)|1
T0|acq(m)|2
T0|r(flag)|3
T0|w(data)|4
T0|rel(m)|5
T1|acq(m2)|6
T1|w(data)|7
T1|rel(m2)|8
T0|join(T1)|9
)");
  pecan::AnalysisOptions options;
  options.patterns = path;
  const auto result = pecan::Analyze(trace, options);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].pattern == "check-then-act");
  CHECK(result.findings[0].events == std::vector<pecan::EventIndex>{2, 6, 3});
  CHECK_FALSE(result.findings[0].observed);
  CHECK(result.stats.shared_locations == 1);  // data; the flag is kept but not shared
  // The built-ins alone keep the classic filter: the flag is no location for them.
  options.patterns = "all";
  const auto builtin = pecan::Analyze(trace, options);
  CHECK(builtin.stats.shared_locations == 1);
  // A pattern whose variable needs two threads still skips a one-thread location: here the
  // flag would have to be written by another thread.
  const std::string two_threads = WriteTemp("flag_writer.txt", R"(
pattern flag-flip { T: t1 t2 t1; SV: flag flag data; AR: u v u; AT: r w w; }
)");
  options.patterns = two_threads;
  CHECK(pecan::Analyze(trace, options).findings.empty());
}
