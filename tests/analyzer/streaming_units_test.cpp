// The streaming search of atomic regions (streaming_units.h) against Analyze on the trace
// ReadTraceForAnalysis keeps: random traces with regions of several accesses, sites shared between
// events (so access classes have many members and site tuples repeat), byte ranges that differ
// within a variable, FREEs and ALLOCs, and accesses the analysis has no use for, are written to a
// .pecan file; the streaming search must find exactly what Analyze finds, with the same witnesses,
// witness counts, reasons, moved events and candidate count and, under hunt's per-site bound,
// the same site tuples left out.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/streaming_analysis.h"
#include "mutated_trace.h"
#include "region_heavy_trace.h"
#include "streamed.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/trace_text.h"
#include "tests/support/unused_accesses.h"
#include "trace_builder.h"

using namespace pecan;

namespace {

constexpr uint64_t kX = 0x100, kL = 0x900;

// Thread 0 reads x twice in a critical section: the unit (e0, e2).
std::pair<EventIndex, EventIndex> ReadsInCriticalSection(testing::TraceBuilder& b) {
  b.Lock(0, kL);
  const EventIndex e0 = b.Read(0, kX, 1);
  const EventIndex e2 = b.Read(0, kX, 2);
  b.Unlock(0, kL);
  return {e0, e2};
}

}  // namespace

// B writes x twice, then A reads x twice in a critical section, then B writes x again: B never
// learns of A, so each of B's writes fits just before A's second read, and the search takes the
// first write of the class whose later writes fit too.
TEST_CASE("a class whose next member fits the window is resolved when it arrives",
          "[analysis][streaming_units]") {
  testing::TraceBuilder b;
  const EventIndex first = b.Write(1, kX, 5);
  b.Write(1, kX, 5);
  const auto [e0, e2] = ReadsInCriticalSection(b);
  b.Write(1, kX, 5);
  const std::vector<Finding> found = test::Streamed(b.trace(), "atomicity");
  REQUIRE(found.size() == 1);
  CHECK(found[0].variant == "R-W-R");
  CHECK(found[0].events == std::vector<EventIndex>{e0, first, e2});
  CHECK(found[0].witnesses == 1);
}

// The same, but B's later write comes after it saw A's critical section end (a notify): it is
// ordered after the window, so the latest write before the window is taken.
TEST_CASE("a class whose next member comes too late keeps its latest member so far",
          "[analysis][streaming_units]") {
  testing::TraceBuilder b;
  b.Write(1, kX, 5);
  const EventIndex latest = b.Write(1, kX, 5);
  const auto [e0, e2] = ReadsInCriticalSection(b);
  b.Notify(0, 0x700);
  b.Wait(1, 0x700);
  b.Write(1, kX, 5);
  const std::vector<Finding> found = test::Streamed(b.trace(), "atomicity");
  REQUIRE(found.size() == 1);
  CHECK(found[0].events == std::vector<EventIndex>{e0, latest, e2});
}

// B's writes before the window are ordered before A's first read (A waited for B's notify), so
// only B's write after the window fits: it moves back to just before A's second read.
TEST_CASE("a class with no member before the window that fits takes its next member",
          "[analysis][streaming_units]") {
  testing::TraceBuilder b;
  b.Write(1, kX, 5);
  b.Notify(1, 0x700);
  b.Wait(0, 0x700);
  const auto [e0, e2] = ReadsInCriticalSection(b);
  const EventIndex next = b.Write(1, kX, 5);
  const std::vector<Finding> found = test::Streamed(b.trace(), "atomicity");
  REQUIRE(found.size() == 1);
  CHECK(found[0].events == std::vector<EventIndex>{e0, next, e2});
  CHECK(found[0].overtaken == std::vector<EventIndex>{e2});
}

TEST_CASE("the streaming search of atomic regions finds what Analyze finds",
          "[analysis][streaming_units]") {
  const test::RandomTraceGenerator generator(test::RegionSearchOptions());
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan-streaming-units-test-" + std::to_string(::getpid()) + ".pecan"))
                               .string();
  uint64_t findings = 0, observed = 0, later = 0, earlier = 0, repeated = 0, capped = 0;
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    // Odd seeds: the generator's traces (waits, atomics, nested locks); even: region-heavy ones.
    const Trace base = seed % 2 == 1 ? generator.Generate(seed) : test::RegionHeavy(seed);
    const Trace whole = test::Mutated(test::WithUnusedAccesses(base, seed), seed);
    AnalysisOptions analysis;
    analysis.patterns = seed % 4 == 0 ? "race,atomicity" : "atomicity";
    analysis.threads = 1;
    analysis.max_per_site = seed % 3 == 0 ? 1 + seed % 2 : 0;  // hunt's bound, on some traces
    INFO("seed " << seed << ", patterns " << analysis.patterns << ", max per site "
                 << analysis.max_per_site << "\n"
                 << test::DescribeTrace(whole));
    const AnalysisResult got = test::StreamedAgainstIndexed(whole, analysis, path);
    for (const Finding& f : got.findings) {
      if (f.pattern == "race") continue;
      ++findings;
      observed += f.observed;
      repeated += f.witnesses > 1;
      if (!f.observed) (f.events[1] > f.events[2] ? later : earlier) += 1;
    }
    capped += got.stats.capped;
  }
  std::filesystem::remove(path);
  WARN("findings " << findings << ", observed " << observed << ", moved back " << later
                   << ", moved forward " << earlier << ", repeated " << repeated << ", capped "
                   << capped);
}

// Threads that meet only at locks, most variables always accessed under a lock of their own: the
// search keeps no unit whose window holds that lock throughout (KeptAccesses::TrackGuards), nor
// one for a later class only of a thread that joined the unit's thread after its end (the
// workers' counters main reads), and must still find exactly what Analyze finds, with the same
// candidate count.
TEST_CASE("the streaming search of atomic regions drops only units nothing completes",
          "[analysis][streaming_units]") {
  const auto [findings, candidates] = test::GuardedAgainstIndexed(
      "atomicity", "race,atomicity", [](const Finding& f) { return f.pattern != "race"; });
  WARN("atomicity findings " << findings << ", candidates " << candidates);
}

// B writes x many times (its class is compacted as it grows), releases a flag, writes x many
// times more; A acquires the flag, then reads x twice in a critical section; B writes x once
// more, never having seen A. The witness is B's first write after the release: the first A does
// not know to precede its window. The search must still hold it though the release came after
// what the compaction last learned of the threads' clocks.
TEST_CASE("members a unit can take survive the compaction of a long class",
          "[analysis][streaming_units]") {
  testing::TraceBuilder b;
  for (int n = 0; n < 40; ++n) b.Write(1, kX, 5);
  b.AtomicStore(1, 0x600, MemoryOrder::kRelease, 9);
  const EventIndex after_release = b.Write(1, kX, 5);
  for (int n = 0; n < 39; ++n) b.Write(1, kX, 5);
  b.AtomicLoad(0, 0x600, MemoryOrder::kAcquire, 8);
  const auto [e0, e2] = ReadsInCriticalSection(b);
  b.Write(1, kX, 5);
  const std::vector<Finding> found = test::Streamed(b.trace(), "atomicity");
  REQUIRE(found.size() == 1);
  CHECK(found[0].events == std::vector<EventIndex>{e0, after_release, e2});
}

// Long runs: classes are compacted many times against the threads' knowledge, which is refreshed
// every 65,536 events, so members older than the refresh survive only at a threshold.
TEST_CASE("the streaming search of atomic regions holds on long runs",
          "[analysis][streaming_units]") {
  test::LongRunsAgainstIndexed("atomicity");
}
