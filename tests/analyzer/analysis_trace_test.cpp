// ReadTraceForAnalysis (analysis_trace.h) against the whole trace: a random feasible trace with
// thread-private accesses, read-only shared data and reused heap blocks mixed in is written to a
// .pecan file; the analysis of what ReadTraceForAnalysis keeps must find exactly what the
// analysis of the whole trace finds (events, slots and reasons in the recorded trace's numbers),
// while holding fewer events.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/analysis_trace.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/unused_accesses.h"
#include "tests/support/trace_text.h"
#include "trace_format/trace_writer.h"

using namespace pecan;

namespace {

void RequireSame(const Finding& a, const Finding& b) {
  CHECK(a.id == b.id);
  CHECK(a.pattern == b.pattern);
  CHECK(a.variant == b.variant);
  CHECK(a.observed == b.observed);
  CHECK(a.events == b.events);
  CHECK(a.overtaken == b.overtaken);
  CHECK(a.reason == b.reason);
  CHECK(a.witnesses == b.witnesses);
}

}  // namespace

TEST_CASE("the trace read for analysis finds what the whole trace finds, holding less",
          "[analysis][analysis_trace]") {
  test::RandomTraceOptions options;
  options.max_threads = 4;
  options.min_events = 20;
  options.max_events = 40;
  options.max_variables = 4;
  options.atomics = true;
  options.read_locks = true;
  const test::RandomTraceGenerator generator(options);
  const std::string path =
      (std::filesystem::temp_directory_path() / "pecan-analysis-trace-test.pecan").string();
  uint64_t recorded = 0, held = 0, findings = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Trace whole = test::WithUnusedAccesses(generator.Generate(seed), seed);
    WriteTrace(path, whole);
    for (const char* patterns : {"all", "race", "atomicity,asv"}) {
      AnalysisOptions analysis;
      analysis.patterns = patterns;
      analysis.threads = 1;
      const Trace reduced = ReadTraceForAnalysis(path, analysis);
      INFO("seed " << seed << ", patterns " << patterns << "\n" << test::DescribeTrace(whole));
      REQUIRE(reduced.RecordedEvents() == whole.size_events());
      const AnalysisResult expected = Analyze(whole, analysis);
      AnalysisResult got = Analyze(reduced, analysis);
      ToRecordedNumbers(reduced, &got.findings);
      REQUIRE(got.findings.size() == expected.findings.size());
      for (size_t i = 0; i < got.findings.size(); ++i)
        RequireSame(got.findings[i], expected.findings[i]);
      CHECK(got.stats.events == expected.stats.events);
      CHECK(got.stats.shared_locations == expected.stats.shared_locations);
      recorded += whole.size_events();
      held += reduced.size_events();
      findings += got.findings.size();
    }
  }
  std::filesystem::remove(path);
  // The mix must exercise both sides: findings, and accesses left out.
  CHECK(findings > 1000);
  CHECK(held < recorded * 3 / 4);
}

TEST_CASE("the trace read for analysis under --regions functions is the whole trace",
          "[analysis][analysis_trace]") {
  const Trace whole = test::WithUnusedAccesses(test::RandomTraceGenerator().Generate(3), 3);
  const std::string path =
      (std::filesystem::temp_directory_path() / "pecan-analysis-trace-functions.pecan").string();
  WriteTrace(path, whole);
  AnalysisOptions analysis;
  analysis.regions = RegionMode::kFunctions;
  const Trace read = ReadTraceForAnalysis(path, analysis);
  std::filesystem::remove(path);
  CHECK(read.size_events() == whole.size_events());
  CHECK(read.origin.empty());
}
