// AnalysisOptions::max_pattern_work: a user pattern whose search would take hours stops after
// that many matcher steps with the findings found so far and a notice; patterns that finish
// below the bound, and the built-in families, are not affected.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/report_events.h"
#include "analyzer/report_text.h"
#include "analyzer/symbolizer.h"
#include "std_trace.h"

using pecan::testing::StdTrace;

namespace {

// The issue's reproducer: T0 and T1 take turns writing x and y, `rounds` times (4 events a
// round). Each event of the pattern below can bind to about a quarter of the trace's accesses,
// so the full search is on the order of (events / 4)^4 steps.
pecan::Trace PingPong(int rounds) {
  std::string text = "T0|fork(T1)|1\n";
  for (int i = 0; i < rounds; ++i) {
    text += "T0|w(x)|" + std::to_string(10 + i % 4) + "\n";
    text += "T1|w(y)|" + std::to_string(20 + i % 4) + "\n";
    text += "T0|w(y)|" + std::to_string(30 + i % 4) + "\n";
    text += "T1|w(x)|" + std::to_string(40 + i % 4) + "\n";
  }
  text += "T0|join(T1)|2\n";
  return StdTrace(text);
}

constexpr const char* kPingPong =
    "pattern ping-pong { T: t1 t2 t1 t2; SV: x y x y; AR: a b c d; AT: w w w w; }\n";

// PATTERNS.md's example: a check-then-act on a flag and the data it guards.
constexpr const char* kCheckThenAct =
    "pattern check-then-act { T: t1 t2 t1; SV: flag data data; AR: u v u; AT: r w w; }\n";
constexpr const char* kCheckThenActTrace = R"(T0|fork(T1)|1
T0|acq(m)|2
T0|r(flag)|3
T0|w(data)|4
T0|rel(m)|5
T1|acq(m2)|6
T1|w(data)|7
T1|rel(m2)|8
T0|join(T1)|9
)";

// A pattern file in the temporary directory, removed with the object.
class PatternFile {
 public:
  PatternFile(const std::string& name, const std::string& text)
      : path_((std::filesystem::temp_directory_path() / name).string()) {
    std::ofstream(path_) << text;
  }
  ~PatternFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

pecan::AnalysisOptions Options(const std::string& patterns, uint64_t max_work) {
  pecan::AnalysisOptions options;
  options.patterns = patterns;
  options.max_pattern_work = max_work;
  options.threads = 1;
  return options;
}

std::vector<std::vector<pecan::EventIndex>> Events(const pecan::AnalysisResult& result) {
  std::vector<std::vector<pecan::EventIndex>> out;
  for (const pecan::Finding& f : result.findings) out.push_back(f.events);
  return out;
}

std::string TextReport(const pecan::Trace& trace, const pecan::AnalysisResult& result) {
  pecan::Symbolizer symbolizer(trace);
  std::ostringstream out;
  pecan::WriteTextReport(out, trace, result, symbolizer);
  return out.str();
}

}  // namespace

TEST_CASE("A runaway user pattern stops at the work bound with a notice", "[analysis][bound]") {
  const pecan::Trace trace = PingPong(2750);  // 11002 events, as in the issue
  const PatternFile file("pecan-work-bound-ping-pong.txt", kPingPong);
  const pecan::AnalysisResult result = pecan::Analyze(trace, Options(file.path(), 1'000'000));
  REQUIRE(result.stats.stopped_patterns == std::vector<std::string>{"ping-pong W-W-W-W"});
  CHECK(result.stats.pattern_work_bound == 1'000'000);
  // What it found before the bound is kept.
  CHECK(!result.findings.empty());

  const std::string report = TextReport(trace, result);
  CHECK(report.find("pecan: note: pattern 'ping-pong W-W-W-W': search stopped after 1000000 "
                    "steps (work bound, --max-pattern-work); its findings may be incomplete\n") !=
        std::string::npos);
  CHECK(pecan::SummaryLine(pecan::Summarize(result))
            .ends_with("; 1 pattern stopped by the work bound (findings may be incomplete)"));

  // Where it stops depends on the search order only, not on the number of threads.
  pecan::AnalysisOptions parallel = Options(file.path() + ",race", 1'000'000);
  parallel.threads = 4;
  const pecan::AnalysisResult in_parallel = pecan::Analyze(trace, parallel);
  pecan::AnalysisOptions serial = parallel;
  serial.threads = 1;
  const pecan::AnalysisResult in_serial = pecan::Analyze(trace, serial);
  CHECK(in_parallel.stats.stopped_patterns == in_serial.stats.stopped_patterns);
  CHECK(Events(in_parallel) == Events(in_serial));
}

TEST_CASE("A user pattern below the work bound finds what it found before", "[analysis][bound]") {
  const PatternFile file("pecan-work-bound-check-then-act.txt", kCheckThenAct);
  const pecan::Trace trace = StdTrace(kCheckThenActTrace);
  const pecan::AnalysisResult result =
      pecan::Analyze(trace, Options(file.path(), pecan::kDefaultMaxPatternWork));
  CHECK(result.stats.stopped_patterns.empty());
  CHECK(Events(result) == std::vector<std::vector<pecan::EventIndex>>{{2, 6, 3}});
  CHECK(TextReport(trace, result).find("work bound") == std::string::npos);

  // The reproducer on a short trace: the same findings with the default bound as without one.
  const PatternFile ping_pong("pecan-work-bound-ping-pong-short.txt", kPingPong);
  const pecan::Trace short_trace = PingPong(12);
  const pecan::AnalysisResult bounded =
      pecan::Analyze(short_trace, Options(ping_pong.path(), pecan::kDefaultMaxPatternWork));
  const pecan::AnalysisResult unbounded = pecan::Analyze(short_trace, Options(ping_pong.path(), 0));
  CHECK(bounded.stats.stopped_patterns.empty());
  CHECK(unbounded.stats.stopped_patterns.empty());
  // Every site tuple: 4 sites per event, and t1/t2, x/y on T0/T1, x/y either way round.
  CHECK(bounded.findings.size() == 1024);
  CHECK(Events(bounded) == Events(unbounded));
}

TEST_CASE("The built-in patterns are never stopped by the work bound", "[analysis][bound]") {
  // Races, atomicity violations and a two-location ASV on a trace with locks.
  const pecan::Trace trace = StdTrace(R"(T0|fork(T1)|1
T0|acq(m)|2
T0|r(x)|3
T0|w(x)|4
T0|w(y)|5
T0|rel(m)|6
T1|w(x)|7
T1|w(y)|8
T1|r(x)|9
T0|w(x)|10
T0|join(T1)|11
)");
  const pecan::AnalysisResult unbounded = pecan::Analyze(trace, Options("all", 0));
  REQUIRE(unbounded.findings.size() > 3);
  const pecan::AnalysisResult bounded = pecan::Analyze(trace, Options("all", 1));
  CHECK(bounded.stats.stopped_patterns.empty());
  CHECK(Events(bounded) == Events(unbounded));

  // A user pattern of atomicity's shape is searched with atomicity's group: not stopped either.
  const PatternFile file("pecan-work-bound-atomicity-shape.txt",
                         "pattern lost-write { T: t1 t2 t1; SV: s s s; AR: u v u; AT: * w w; }\n");
  const pecan::AnalysisResult mixed = pecan::Analyze(trace, Options("all," + file.path(), 1));
  CHECK(mixed.stats.stopped_patterns.empty());
  // Alone, the same pattern is a group of user patterns, and one step is not enough.
  const pecan::AnalysisResult alone = pecan::Analyze(trace, Options(file.path(), 1));
  CHECK(alone.stats.stopped_patterns == std::vector<std::string>{"lost-write *-W-W"});
}
