// AnalysisOptions::max_per_site: a site that races with many others keeps only that many
// findings per pattern, the rest counted as capped; without the bound every one is reported.
#include <catch2/catch.hpp>

#include <string>

#include "analyzer/analysis.h"
#include "std_trace.h"

using pecan::testing::StdTrace;

TEST_CASE("max_per_site bounds the findings a hot site takes part in", "[cap]") {
  // T0 writes x at one site; T1 reads it at six different sites (lines 10..15).
  std::string text = "T0|fork(T1)|1\nT0|w(x)|2\n";
  for (int line = 10; line < 16; ++line) text += "T1|r(x)|" + std::to_string(line) + "\n";
  const pecan::Trace trace = StdTrace(text);
  pecan::AnalysisOptions options;
  options.patterns = "race";
  options.threads = 1;
  const pecan::AnalysisResult all = pecan::Analyze(trace, options);
  CHECK(all.findings.size() == 6);
  CHECK(all.stats.capped == 0);

  options.max_per_site = 2;
  const pecan::AnalysisResult capped = pecan::Analyze(trace, options);
  CHECK(capped.findings.size() == 2);
  CHECK(capped.stats.capped == 4);
}

namespace {

// T1's critical section on m writes a, then `gap` other shared variables, then b; T0's section
// on n writes a and b (in the trace after it): the two-location atomic-set patterns pair T1's
// w(a) and w(b). (A long function under --regions functions is a long unit the same way.)
pecan::Trace LongUnit(int gap) {
  std::string text = "T0|fork(T1)|1\nT1|acq(m)|10\nT1|w(a)|11\n";
  for (int i = 0; i < gap; ++i) text += "T1|w(filler" + std::to_string(i) + ")|12\n";
  text += "T1|w(b)|13\nT1|rel(m)|14\nT0|acq(n)|2\nT0|w(a)|3\nT0|w(b)|4\nT0|rel(n)|5\n";
  // The fillers are shared too (only shared locations are in a region's accesses).
  for (int i = 0; i < gap; ++i) text += "T0|w(filler" + std::to_string(i) + ")|6\n";
  return StdTrace(text);
}

size_t AsvFindings(const pecan::AnalysisResult& result) {
  size_t n = 0;
  for (const auto& f : result.findings) n += f.pattern == "asv";
  return n;
}

}  // namespace

TEST_CASE("A long region pairs its accesses only within a window", "[cap][regions]") {
  pecan::AnalysisOptions options;
  options.patterns = "asv";
  options.threads = 1;
  const pecan::AnalysisResult near = pecan::Analyze(LongUnit(10), options);
  CHECK(AsvFindings(near) > 0);
  CHECK(near.stats.windowed == 0);
  // 300 accesses apart: past the window (128), the pair is not looked at — the bound that keeps
  // --regions functions linear in a function's accesses.
  const pecan::AnalysisResult far = pecan::Analyze(LongUnit(300), options);
  CHECK(AsvFindings(far) == 0);
  CHECK(far.stats.windowed > 0);
}
