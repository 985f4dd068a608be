// The streaming race search (streaming_races.h) against Analyze on the whole trace: random
// traces, with sites shared between events (so access classes have many members and site tuples
// repeat across locations), byte ranges that differ within a variable or span several (block
// copies), FREEs and ALLOCs of shared variables by any thread, and accesses the analysis has no
// use for, are written to a .pecan file; the streaming search must find exactly what Analyze finds,
// with the same witnesses, witness counts, reasons, candidate count and, under hunt's per-site
// bound, the same site tuples left out.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/streaming_analysis.h"
#include "buffer_trace.h"
#include "mutated_trace.h"
#include "same_findings.h"
#include "streamed.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/trace_text.h"
#include "tests/support/unused_accesses.h"
#include "trace_builder.h"
#include "trace_format/error.h"
#include "trace_format/trace_writer.h"

using namespace pecan;

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
    const Trace whole =
        test::Mutated(test::WithUnusedAccesses(generator.Generate(seed), seed), seed);
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

TEST_CASE("the streaming analysis serves every built-in pattern under lock regions",
          "[analysis][streaming_races]") {
  AnalysisOptions options;
  for (const char* streamed :
       {"race", "race,deadlock", "deadlock", "atomicity", "race,atomicity,deadlock",
        "atomicity,race", "all", "asv", "asv,deadlock", "race,asv"}) {
    options.patterns = streamed;
    CHECK(Streams(options));
  }
  // User patterns are searched indexed.
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("pecan-user-pattern-" + std::to_string(::getpid()) + ".txt"))
                               .string();
  {
    std::ofstream out(file);
    out << "pattern mine variant \"R-W-R\" { T: t1 t2 t1; SV: s s s; AR: u v u; AT: r w r; }\n";
  }
  options.patterns = file;
  CHECK_FALSE(Streams(options));
  std::filesystem::remove(file);
  // Function regions need a pass of their own; races do not use regions.
  options.regions = RegionMode::kFunctions;
  options.patterns = "atomicity";
  CHECK_FALSE(Streams(options));
  options.patterns = "asv";
  CHECK_FALSE(Streams(options));
  options.patterns = "race,deadlock";
  CHECK(Streams(options));
  options.patterns = "no-such-family";
  CHECK_THROWS_AS(Streams(options), PecanError);
}

// Threads that meet only at locks, most variables always accessed under a lock of their own: the
// race search follows only the back-to-back pairs of a location whose every access holds one lock
// (RaceGuardedLocations), and must still find exactly what Analyze finds, with the same candidate
// count; some variables are unguarded, so races remain.
TEST_CASE("the streaming race search follows no classes where every access holds a lock",
          "[analysis][streaming_races]") {
  const auto [findings, candidates] = test::GuardedAgainstIndexed(
      "race", "race,atomicity", [](const Finding& f) { return f.pattern == "race"; });
  CHECK(findings > 100);
  CHECK(candidates > 1000);
  WARN("races " << findings << ", candidates " << candidates);
}

// Threads that hand byte buffers to each other (BufferHandoff): a location has many classes, most
// keep their first member only, and the threads are ordered at some handoffs only. The search
// follows the threads' last accesses to such a location, and lets a pair go once its first class
// is complete and ordered before the second's member; it must still find exactly what Analyze
// finds, with the same witness and candidate counts.
TEST_CASE("the streaming race search finds what Analyze finds on handed-over byte buffers",
          "[analysis][streaming_races]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan-streamed-buffers-" + std::to_string(::getpid()) + ".pecan"))
                               .string();
  uint64_t findings = 0, predicted = 0, repeated = 0, candidates = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const Trace base = test::BufferHandoff(seed, seed % 10 == 0 ? 4000 : 1200);
    const Trace whole = seed % 3 == 0 ? test::Mutated(base, seed) : base;
    AnalysisOptions analysis;
    analysis.patterns = seed % 4 == 0 ? "all" : "race";
    analysis.threads = 1;
    analysis.max_per_site = seed % 5 == 0 ? 1 : 0;
    INFO("seed " << seed << ", patterns " << analysis.patterns);
    const AnalysisResult got = test::StreamedAgainstIndexed(whole, analysis, path);
    for (const Finding& f : got.findings) {
      findings += f.pattern == "race";
      predicted += f.pattern == "race" && !f.observed;
      repeated += f.witnesses > 1;
    }
    candidates += got.stats.candidates;
  }
  std::filesystem::remove(path);
  CHECK(findings > 500);
  CHECK(predicted > 100);
  CHECK(repeated > 100);
  WARN("races " << findings << " (" << predicted << " predicted), candidates " << candidates);
}

TEST_CASE("the streaming race search finds what Analyze finds on a location wider than 4 GiB",
          "[analysis][streaming_races]") {
  // Two block copies of 3 GiB that overlap make one location of 5 GiB: its classes' first bytes
  // are past what an offset of 32 bits reaches from the location's first (RaceClass::offset), and
  // the search keeps them whole. Small accesses near both ends race with each other and with the
  // copies.
  constexpr uint64_t kBase = uint64_t{1} << 40;
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  constexpr uint64_t kFar = kBase + 4 * kGiB + 16;  // 4 GiB and 16 bytes in
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Add(1, EventKind::kWrite, kBase, static_cast<uint32_t>(3 * kGiB), 0, 1);
  b.Add(2, EventKind::kRead, kBase + 2 * kGiB, static_cast<uint32_t>(3 * kGiB), 0, 2);
  b.Write(1, kFar, 3);                             // against the read copy
  b.Add(2, EventKind::kRead, kFar + 4, 2, 0, 4);   // against the write at kFar
  b.Add(2, EventKind::kWrite, kFar + 7, 1, 0, 5);  // against the write at kFar
  b.Read(1, kBase + 8, 6);                         // against nothing of thread 2 yet
  b.Write(2, kBase + 8, 7);                        // against the write copy and that read
  b.Add(1, EventKind::kWrite, kFar + 1, 1, 0, 8);  // against the read copy
  const Trace& trace = b.trace();
  const std::vector<Finding> found = test::Streamed(trace, "race");
  size_t far = 0;  // races of an access 4 GiB or more into the location
  for (const Finding& f : found)
    far +=
        trace.addr[f.events[0]] >= kBase + 4 * kGiB || trace.addr[f.events[1]] >= kBase + 4 * kGiB;
  CHECK(found.size() == 7);
  CHECK(far == 4);
}

TEST_CASE("the streaming analysis locates each byte of a word by the allocation version it has now",
          "[analysis][streaming_races]") {
  // An 8-byte block written by thread 2 at its second byte and by thread 1 (whole, then at its
  // first and second bytes) is one location. Between, an ALLOC of its last 4 bytes gives them a
  // new life: thread 2's writes there are not the old block's, while thread 1's write at the first
  // byte, just before them, is. Locating one byte of a word must not answer for the bytes of the
  // word that live in another version (a recent answer kept for the whole word put thread 2's
  // writes in the old block, racing with thread 1's whole write).
  constexpr uint64_t kWord = 0x10000;
  testing::TraceBuilder b;
  b.Add(0, EventKind::kAlloc, kWord, 8, 0, 1);
  b.Fork(0, 1);
  b.Fork(0, 2);
  const EventIndex second = b.Add(2, EventKind::kWrite, kWord + 1, 1, 0, 2);
  const EventIndex whole = b.Add(1, EventKind::kWrite, kWord, 8, 0, 3);
  b.Add(2, EventKind::kAlloc, kWord + 4, 4, 0, 4);
  b.Add(1, EventKind::kWrite, kWord, 1, 0, 5);
  b.Add(2, EventKind::kWrite, kWord + 4, 1, 0, 6);
  b.Add(2, EventKind::kWrite, kWord + 5, 1, 0, 7);
  const EventIndex last = b.Add(1, EventKind::kWrite, kWord + 1, 1, 0, 8);
  const std::vector<Finding> found = test::Streamed(b.trace(), "race");
  REQUIRE(found.size() == 2);
  CHECK(found[0].events == std::vector<EventIndex>{second, whole});
  CHECK(found[1].events == std::vector<EventIndex>{second, last});
}
