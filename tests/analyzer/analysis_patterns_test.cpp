// Every built-in atomicity and atomic-set pattern: a trace that shows it only after reordering,
// one that shows it as recorded, and four that must not report it (common lock, fork order,
// notify/wait order, release/acquire atomics). The traces are generated from the pattern.
#include <catch2/catch.hpp>

#include <sstream>

#include "analyzer/analysis.h"
#include "analyzer/builtin_patterns.h"
#include "std_trace.h"
#include "streamed.h"

using pecan::AnalysisOptions;
using pecan::Analyze;
using pecan::EventIndex;
using pecan::Pattern;
using pecan::testing::StdTrace;

namespace {

enum class Shape { kPredicted, kObserved, kCommonLock, kForkOrder, kNotifyOrder, kAtomicOrder };

// Writes STD lines and remembers the index of each pattern event.
class TraceText {
 public:
  EventIndex Line(const std::string& line) {
    text_ << line << "|" << next_site_++ << "\n";
    return count_++;
  }
  std::string str() const { return text_.str(); }

 private:
  std::ostringstream text_;
  EventIndex count_ = 0;
  int next_site_ = 1;
};

std::string Access(const Pattern& p, size_t pos) {
  const std::string var = p.variable[pos] == 0 ? "x" : "y";
  return std::string(p.access[pos] == pecan::AccessMatch::kRead ? "r(" : "w(") + var + ")";
}

struct Generated {
  std::string text;
  std::vector<EventIndex> events;
};

Generated Generate(const Pattern& p, Shape shape) {
  TraceText t;
  std::vector<EventIndex> events(p.size());
  const bool locked = shape == Shape::kCommonLock;
  const std::string open_u = locked ? "T0|acq(m)" : "T0|begin(u)";
  const std::string close_u = locked ? "T0|rel(m)" : "T0|end(u)";
  const std::string open_v = locked ? "T1|acq(m)" : "T1|begin(v)";
  const std::string close_v = locked ? "T1|rel(m)" : "T1|end(v)";
  auto other_events = [&] {
    t.Line(open_v);
    for (size_t pos = 0; pos < p.size(); ++pos) {
      if (p.thread[pos] != p.thread[0]) events[pos] = t.Line("T1|" + Access(p, pos));
    }
    t.Line(close_v);
  };

  if (shape == Shape::kObserved) {
    t.Line("T0|fork(T1)");
    t.Line(open_u);
    bool v_open = false;
    for (size_t pos = 0; pos < p.size(); ++pos) {
      if (p.thread[pos] == p.thread[0]) {
        if (v_open) t.Line(close_v);
        v_open = false;
        events[pos] = t.Line("T0|" + Access(p, pos));
      } else {
        if (!v_open) t.Line(open_v);
        v_open = true;
        events[pos] = t.Line("T1|" + Access(p, pos));
      }
    }
    t.Line(close_u);
    return {t.str(), events};
  }
  if (shape == Shape::kNotifyOrder) {
    t.Line("T0|w(unrelated)");
    t.Line("T1|acq(cm)");
    t.Line("T1|rel(cm)");
  }
  if (shape == Shape::kPredicted || shape == Shape::kCommonLock) t.Line("T0|fork(T1)");
  t.Line(open_u);
  for (size_t pos = 0; pos < p.size(); ++pos) {
    if (p.thread[pos] == p.thread[0]) events[pos] = t.Line("T0|" + Access(p, pos));
  }
  t.Line(close_u);
  switch (shape) {
    case Shape::kForkOrder:
      t.Line("T0|fork(T1)");
      break;
    case Shape::kNotifyOrder:
      t.Line("T0|acq(cm)");
      t.Line("T0|notify(cv)");
      t.Line("T0|rel(cm)");
      t.Line("T1|wait(cv)");
      t.Line("T1|acq(cm)");
      t.Line("T1|rel(cm)");
      break;
    case Shape::kAtomicOrder:
      t.Line("T0|astore(flag,release)");
      t.Line("T1|aload(flag,acquire)");
      break;
    default:
      break;
  }
  other_events();
  return {t.str(), events};
}

std::vector<Pattern> PatternsWithMoreThanTwoEvents() {
  std::vector<Pattern> out;
  for (Pattern& p : pecan::SelectPatterns("atomicity,asv")) {
    if (p.size() > 2) out.push_back(std::move(p));
  }
  return out;
}

const pecan::Finding* Find(const std::vector<pecan::Finding>& findings, const Pattern& p) {
  for (const pecan::Finding& f : findings) {
    if (f.pattern == p.name && f.variant == p.variant) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("Every atomicity and ASV pattern: positive and negative traces", "[analysis][patterns]") {
  const std::vector<Pattern> patterns = PatternsWithMoreThanTwoEvents();
  REQUIRE(patterns.size() == 4 + 11);
  for (const Pattern& p : patterns) {
    AnalysisOptions options;
    options.patterns = p.name;  // asv alone: its one-location patterns are not merged away
    for (Shape shape : {Shape::kPredicted, Shape::kObserved, Shape::kCommonLock, Shape::kForkOrder,
                        Shape::kNotifyOrder, Shape::kAtomicOrder}) {
      const Generated g = Generate(p, shape);
      INFO(p.name << " " << p.variant << " shape " << static_cast<int>(shape) << "\n" << g.text);
      const auto result = Analyze(StdTrace(g.text), options);
      const pecan::Finding* f = Find(result.findings, p);
      if (shape == Shape::kPredicted || shape == Shape::kObserved) {
        REQUIRE(f != nullptr);
        CHECK(f->events == g.events);
        CHECK(f->observed == (shape == Shape::kObserved));
        if (shape == Shape::kPredicted) {
          CHECK_FALSE(f->overtaken.empty());
          CHECK(f->reason.find("can run just before") != std::string::npos);
        }
      } else {
        CHECK(f == nullptr);
      }
      // Atomicity alone is also searched on the file as it is read: the same findings.
      if (p.name == "atomicity") {
        const std::vector<pecan::Finding> streamed =
            pecan::test::Streamed(StdTrace(g.text), options.patterns);
        CHECK(streamed.size() == result.findings.size());
      }
    }
  }
}

TEST_CASE("atomicity and asv together report a shared triple once", "[analysis][patterns]") {
  const auto trace = StdTrace(R"(T0|fork(T1)|1
T0|begin(u)|2
T0|r(x)|3
T0|r(x)|4
T0|end(u)|5
T1|w(x)|6
)");
  AnalysisOptions options;
  options.patterns = "atomicity,asv";
  const auto result = Analyze(trace, options);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].pattern == "atomicity");
  CHECK(result.findings[0].variant == "R-W-R");
  options.patterns = "asv";
  const auto asv_only = Analyze(trace, options);
  REQUIRE(asv_only.findings.size() == 1);
  CHECK(asv_only.findings[0].variant == "R W' R");
}
