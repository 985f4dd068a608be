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
