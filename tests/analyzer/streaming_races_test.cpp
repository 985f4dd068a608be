// The streaming race search (streaming_races.h) against Analyze on the whole trace: random
// traces, with sites shared between events (so access classes have many members and site tuples
// repeat across locations), byte ranges that differ within a variable or span several (block
// copies), FREEs and ALLOCs of shared variables by any thread, and accesses the analysis has no
// use for, are written to a .pecan file; the streaming search must find exactly what Analyze finds,
// with the same witnesses, witness counts, reasons, candidate count and, under hunt's per-site
// bound, the same site tuples left out.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/streaming_analysis.h"
#include "same_findings.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/trace_text.h"
#include "tests/support/unused_accesses.h"
#include "trace_format/error.h"
#include "trace_format/trace_writer.h"

using namespace pecan;

namespace {

// `base` with its sites folded onto a few, some accesses narrowed to part of their variable,
// and FREE/ALLOC events of variables' bytes inserted by random threads. The result need not be
// a feasible run: both searches must agree on any trace.
Trace Mutated(const Trace& base, uint64_t seed) {
  std::mt19937_64 random(seed * 7919 + 1);
  const uint32_t sites = 2 + random() % 6;
  Trace out;
  out.meta = base.meta;
  out.threads = base.threads;
  out.sites = base.sites;
  out.names = base.names;
  std::vector<EventKind> last_kind(base.threads.size(), EventKind::kUnspecified);
  for (EventIndex i = 0; i < base.size_events(); ++i) {
    Event e = base.event(i);
    const bool in_wait = e.kind == EventKind::kWait || last_kind[e.thread] == EventKind::kWait;
    last_kind[e.thread] = e.kind;
    if (IsAccess(e.kind)) {
      e.site = e.site % sites;
      if (random() % 8 == 0 && e.size >= 2) {
        e.size /= 2;
        if (random() % 2) e.addr += e.size;
      } else if (random() % 16 == 0) {  // a block copy over this variable and its neighbours
        e.addr -= e.addr % 8 + 8 * (random() % 2);
        e.size = static_cast<uint32_t>(9 + random() % 32);
      }
      if (!in_wait && random() % 12 == 0) {
        const ThreadId t = static_cast<ThreadId>(random() % base.threads.size());
        const EventKind kind = random() % 3 == 0 ? EventKind::kAlloc : EventKind::kFree;
        out.push_back(Event{t, kind, 0, static_cast<uint32_t>(8 * (1 + random() % 2)),
                            e.addr - e.addr % 8, static_cast<SiteId>(sites + random() % 2)});
      }
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace

TEST_CASE("the streaming race search finds what Analyze finds on the whole trace",
          "[analysis][streaming_races]") {
  test::RandomTraceOptions options;
  options.max_threads = 4;
  options.min_events = 30;
  options.max_events = 60;
  options.max_variables = 4;
  options.atomics = true;
  options.read_locks = true;
  const test::RandomTraceGenerator generator(options);
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan-streaming-races-test-" + std::to_string(::getpid()) + ".pecan"))
                               .string();
  uint64_t findings = 0, observed = 0, frees = 0, repeated = 0, capped = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    const Trace whole = Mutated(test::WithUnusedAccesses(generator.Generate(seed), seed), seed);
    WriteTrace(path, whole);
    AnalysisOptions analysis;
    analysis.patterns = "race";
    analysis.threads = 1;
    analysis.max_per_site = seed % 3 == 0 ? 1 + seed % 2 : 0;  // hunt's bound, on some traces
    REQUIRE(Streams(analysis));
    INFO("seed " << seed << ", max per site " << analysis.max_per_site << "\n"
                 << test::DescribeTrace(whole));
    const AnalysisResult expected = Analyze(whole, analysis);
    AnalysisResult got = AnalyzeStreaming(path, analysis);
    FinishFindings(whole, analysis, &got);  // the ids
    test::CheckSameFindings(got.findings, expected.findings);
    for (const Finding& a : got.findings) {
      observed += a.observed;
      frees += whole.kind[a.events[0]] == EventKind::kFree ||
               whole.kind[a.events[1]] == EventKind::kFree;
      repeated += a.witnesses > 1;
    }
    CHECK(got.stats.candidates == expected.stats.candidates);
    CHECK(got.stats.capped == expected.stats.capped);
    capped += got.stats.capped;
    CHECK(got.stats.events == expected.stats.events);
    CHECK(got.stats.shared_locations == expected.stats.shared_locations);
    findings += got.findings.size();
  }
  std::filesystem::remove(path);
  // The mix must exercise every part: predicted and observed races, FREEs, repeated witnesses.
  CHECK(findings > 1000);
  CHECK(observed > 100);
  CHECK(observed < findings);
  CHECK(frees > 50);
  CHECK(repeated > 100);
  CHECK(capped > 100);
}

TEST_CASE("the streaming analysis serves race-shaped patterns and deadlocks only",
          "[analysis][streaming_races]") {
  AnalysisOptions options;
  options.patterns = "race";
  CHECK(Streams(options));
  options.patterns = "race,deadlock";
  CHECK(Streams(options));
  options.patterns = "deadlock";
  CHECK(Streams(options));
  options.patterns = "all";
  CHECK_FALSE(Streams(options));
  options.patterns = "race,atomicity";
  CHECK_FALSE(Streams(options));
  options.patterns = "asv,deadlock";
  CHECK_FALSE(Streams(options));
  options.patterns = "no-such-family";
  CHECK_THROWS_AS(Streams(options), PecanError);
}
