// Streamed: a worked example run through the streaming analysis too. Catch2 assertions: call
// it inside a test case.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "analyzer/analysis.h"
#include "analyzer/analysis_trace.h"
#include "analyzer/streaming_analysis.h"
#include "guarded_trace.h"
#include "mutated_trace.h"
#include "region_heavy_trace.h"
#include "same_findings.h"
#include "tests/support/trace_text.h"
#include "trace_format/trace_writer.h"

namespace pecan::test {

// The streaming analysis of `whole`, written to `path`, after checking that it finds exactly what
// Analyze finds on the trace ReadTraceForAnalysis keeps (`analysis` must stream), with the same
// candidate, capped and event counts. Findings carry their ids.
inline AnalysisResult StreamedAgainstIndexed(const Trace& whole, const AnalysisOptions& analysis,
                                             const std::string& path) {
  WriteTrace(path, whole);
  REQUIRE(Streams(analysis));
  const Trace kept = ReadTraceForAnalysis(path, analysis, false, false);
  AnalysisResult expected = Analyze(kept, analysis);
  ToRecordedNumbers(kept, &expected.findings);
  AnalysisResult got = AnalyzeStreaming(path, analysis);
  FinishFindings(whole, analysis, &got);
  test::CheckSameFindings(got.findings, expected.findings);
  CHECK(got.stats.candidates == expected.stats.candidates);
  CHECK(got.stats.capped == expected.stats.capped);
  CHECK(got.stats.events == expected.stats.events);
  // On one thread (the first pass in one stage), and with the race search split over 2 and 3
  // threads by location (RaceShards, and the first pass in two stages), it finds the same.
  for (const unsigned threads : {1u, 2u, 3u}) {
    INFO(threads << " threads");
    AnalysisOptions split = analysis;
    split.threads = threads;
    AnalysisResult sharded = AnalyzeStreaming(path, split);
    FinishFindings(whole, split, &sharded);
    test::CheckSameFindings(sharded.findings, expected.findings);
    CHECK(sharded.stats.candidates == expected.stats.candidates);
    CHECK(sharded.stats.capped == expected.stats.capped);
  }
  return got;
}

// The streaming analysis of `trace` for `patterns` (which must stream), checked as above.
inline std::vector<Finding> Streamed(const Trace& trace, const std::string& patterns) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan-streamed-" + std::to_string(::getpid()) + ".pecan"))
                               .string();
  AnalysisOptions analysis;
  analysis.patterns = patterns;
  analysis.threads = 1;
  AnalysisResult got = StreamedAgainstIndexed(trace, analysis, path);
  std::filesystem::remove(path);
  return got.findings;
}

// Long runs: region-heavy traces of 5,000 and 150,000 events, streamed for `patterns` against
// the indexed search. Units close as the threads learn of them, classes are compacted many
// times, and the threads' knowledge is refreshed (every 65,536 events).
inline void LongRunsAgainstIndexed(const std::string& patterns) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan-streamed-long-" + std::to_string(::getpid()) + ".pecan"))
                               .string();
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const Trace whole = RegionHeavy(seed, seed <= 3 ? 5000 : 150000);
    AnalysisOptions analysis;
    analysis.patterns = patterns;
    analysis.threads = 1;
    INFO("seed " << seed << ", " << whole.size_events() << " events");
    StreamedAgainstIndexed(whole, analysis, path);
  }
  std::filesystem::remove(path);
}

// Traces of threads that meet only at locks (GuardedHeavy, 600 seeds and 150 with long sections; a
// third of them mutated, so that one access may break a guard), streamed for `patterns` (every
// fourth seed `wider`, some under hunt's per-site bound) against the indexed search. Returns how
// many findings `counted` takes, and the candidates, over all seeds.
template <typename Counted>
std::pair<uint64_t, uint64_t> GuardedAgainstIndexed(const std::string& patterns,
                                                    const std::string& wider, Counted counted) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan-streamed-guarded-" + std::to_string(::getpid()) + ".pecan"))
                               .string();
  uint64_t findings = 0, candidates = 0;
  for (uint64_t seed = 1; seed <= 750; ++seed) {
    const Trace base = seed <= 600 ? GuardedHeavy(seed) : GuardedHeavy(seed, 0, true);
    const Trace whole = seed % 3 == 0 ? Mutated(base, seed) : base;
    AnalysisOptions analysis;
    analysis.patterns = seed % 4 == 0 ? wider : patterns;
    analysis.threads = 1;
    analysis.max_per_site = seed % 5 == 0 ? 1 : 0;
    INFO("seed " << seed << ", patterns " << analysis.patterns << "\n" << DescribeTrace(whole));
    const AnalysisResult got = StreamedAgainstIndexed(whole, analysis, path);
    for (const Finding& f : got.findings) findings += counted(f);
    candidates += got.stats.candidates;
  }
  std::filesystem::remove(path);
  return {findings, candidates};
}

}  // namespace pecan::test
