// Analyze() against the brute-force oracle (tests/support) on small random traces: every
// anomaly some feasible reordering shows must be predicted. The hybrid model (PECAN 4.2) may
// also predict anomalies no reordering shows; those must at least have the pattern's shape.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

#include "analyzer/analysis.h"
#include "tests/support/brute_force_oracle.h"
#include "tests/support/random_trace_generator.h"
#include "tests/support/trace_text.h"
#include "trace_format/std_format.h"

using namespace pecan;
using namespace pecan::test;

namespace {

struct Tally {
  int traces = 0;
  int anomalies = 0;
  int predicted_only = 0;                        // anomalies needing a reordering
  std::map<std::string, int> false_predictions;  // by pattern
  int findings = 0;
};

// The oracle reports a one-location ASV and the atomicity violation with the same events
// separately; Analyze() merges them when both families run, so run the families apart.
std::vector<Finding> AnalyzeFamilies(const Trace& trace) {
  std::vector<Finding> all;
  for (const char* families : {"race,atomicity", "asv"}) {
    AnalysisOptions options;
    options.patterns = families;
    for (Finding& f : Analyze(trace, options).findings) all.push_back(std::move(f));
  }
  return all;
}

void Compare(const RandomTraceOptions& options, uint64_t first_seed, uint64_t seeds, Tally* tally) {
  RandomTraceGenerator generator(options);
  OracleOptions oracle_options;
  oracle_options.atomics_are_data = true;  // the analyzer's patterns include atomic accesses
  for (uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    const Trace trace = generator.Generate(seed);
    BruteForceOracle oracle(trace, oracle_options);
    const std::vector<Finding> findings = AnalyzeFamilies(trace);
    INFO("seed " << seed << "\n" << DescribeTrace(trace));
    ++tally->traces;
    tally->findings += static_cast<int>(findings.size());
    for (const OracleAnomaly& anomaly : oracle.Anomalies()) {
      INFO("oracle: " << DescribeAnomaly(anomaly));
      ++tally->anomalies;
      if (!oracle.ObservedInTrace(anomaly)) ++tally->predicted_only;
      bool predicted = false;
      for (const Finding& f : findings) predicted |= SameAnomaly(anomaly, f);
      CHECK(predicted);
    }
    const std::vector<OracleAnomaly> candidates = oracle.Candidates();
    for (const Finding& f : findings) {
      INFO("analyzer: " << DescribeAnomaly(ToOracleAnomaly(f)) << " (" << f.reason << ")");
      bool shaped = false;
      for (const OracleAnomaly& c : candidates) shaped |= SameAnomaly(c, f);
      CHECK(shaped);
      bool real = false;
      for (const OracleAnomaly& a : oracle.Anomalies()) real |= SameAnomaly(a, f);
      if (!real) ++tally->false_predictions[f.pattern];
      if (real && f.pattern != "race")
        CHECK(f.observed == oracle.ObservedInTrace(ToOracleAnomaly(f)));
    }
  }
}

// Real programs run the same code many times: gives every access the site of its (thread,
// kind, address), or of its (kind, address) when `across_threads`, so that access classes have
// many members, span thread-communication events and hold different locks over time.
Trace WithSharedSites(Trace trace, bool across_threads) {
  std::map<std::tuple<ThreadId, EventKind, uint64_t>, SiteId> site_of;
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    if (!IsAccess(trace.kind[i])) continue;
    const ThreadId t = across_threads ? 0 : trace.thread[i];
    auto [it, fresh] = site_of.try_emplace({t, trace.kind[i], trace.addr[i]},
                                           static_cast<SiteId>(trace.sites.size()));
    if (fresh) trace.sites.push_back(SiteInfo{kNoModule, 100000 + trace.sites.size()});
    trace.site[i] = it->second;
  }
  return trace;
}

std::vector<SiteId> SitesOf(const Trace& trace, const std::vector<EventIndex>& events) {
  std::vector<SiteId> sites;
  for (EventIndex e : events) sites.push_back(trace.site[e]);
  return sites;
}

// With shared sites one finding stands for every anomaly with its pattern and site tuple: each
// reachable anomaly's tuple is reported, each finding's witness has the pattern's shape, and a
// tuple with an instance in the recorded order is reported as observed, with such a witness.
void CompareBySites(const RandomTraceOptions& options, bool across_threads, uint64_t first_seed,
                    uint64_t seeds, Tally* tally) {
  RandomTraceGenerator generator(options);
  OracleOptions oracle_options;
  oracle_options.atomics_are_data = true;
  for (uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    const Trace trace = WithSharedSites(generator.Generate(seed), across_threads);
    BruteForceOracle oracle(trace, oracle_options);
    const std::vector<Finding> findings = AnalyzeFamilies(trace);
    INFO("seed " << seed << "\n" << DescribeTrace(trace));
    ++tally->traces;
    tally->findings += static_cast<int>(findings.size());
    auto finding_for = [&](const OracleAnomaly& a) -> const Finding* {
      OracleAnomaly ordered = a;
      if (a.pattern == "race") std::sort(ordered.events.begin(), ordered.events.end());
      for (const Finding& f : findings) {
        if (f.pattern == a.pattern && SitesOf(trace, f.events) == SitesOf(trace, ordered.events))
          return &f;
      }
      return nullptr;
    };
    for (const OracleAnomaly& anomaly : oracle.Anomalies()) {
      INFO("oracle: " << DescribeAnomaly(anomaly));
      ++tally->anomalies;
      const bool observed = oracle.ObservedInTrace(anomaly);
      if (!observed) ++tally->predicted_only;
      const Finding* f = finding_for(anomaly);
      CHECK(f != nullptr);
      if (f != nullptr && observed && anomaly.pattern != "race") CHECK(f->observed);
    }
    const std::vector<OracleAnomaly> candidates = oracle.Candidates();
    for (const Finding& f : findings) {
      INFO("analyzer: " << DescribeAnomaly(ToOracleAnomaly(f)) << " (" << f.reason << ")");
      bool shaped = false;
      for (const OracleAnomaly& c : candidates) shaped |= SameAnomaly(c, f);
      CHECK(shaped);
      if (f.pattern != "race" && f.observed) CHECK(oracle.ObservedInTrace(ToOracleAnomaly(f)));
      bool real = false;
      for (const OracleAnomaly& a : oracle.Anomalies()) real |= finding_for(a) == &f;
      if (!real) ++tally->false_predictions[f.pattern];
    }
  }
}

void Print(const char* name, const Tally& t) {
  std::cout << name << ": " << t.traces << " traces, " << t.anomalies << " oracle anomalies ("
            << t.predicted_only << " only by reordering), " << t.findings << " findings;";
  for (const auto& [pattern, n] : t.false_predictions)
    std::cout << " false " << pattern << ": " << n;
  std::cout << "\n";
}

}  // namespace

TEST_CASE("Oracle: every reachable anomaly is predicted (locks, forks, waits)", "[oracle]") {
  Tally tally;
  Compare(RandomTraceOptions{}, 1, 300, &tally);
  Print("locks/forks/waits", tally);
  CHECK(tally.anomalies >= 100);
  CHECK(tally.predicted_only >= 30);
}

TEST_CASE("Oracle: every reachable anomaly is predicted (atomics, read locks)", "[oracle]") {
  RandomTraceOptions options;
  options.atomics = true;
  options.read_locks = true;
  options.thread_begin_end = true;
  Tally tally;
  Compare(options, 5000, 600, &tally);
  Print("atomics/read-locks", tally);
  CHECK(tally.anomalies >= 100);
}

TEST_CASE("Oracle: every reachable anomaly is predicted (longer traces)", "[oracle]") {
  RandomTraceOptions options;
  options.min_threads = 3;
  options.min_events = 16;
  options.max_events = 22;
  options.max_lock_depth = 3;
  Tally tally;
  Compare(options, 9000, 200, &tally);
  Print("longer", tally);
  CHECK(tally.anomalies >= 200);
}

TEST_CASE("Oracle: every reachable anomaly is predicted (shared sites, access classes)",
          "[oracle]") {
  RandomTraceOptions options;
  options.min_threads = 2;
  options.max_threads = 3;
  options.min_events = 14;
  options.max_events = 20;
  options.max_variables = 2;
  options.max_lock_depth = 2;
  for (bool across_threads : {false, true}) {
    Tally tally;
    CompareBySites(options, across_threads, 12000, 400, &tally);
    Print(across_threads ? "shared sites (across threads)" : "shared sites (per thread)", tally);
    CHECK(tally.anomalies >= 200);
  }
  RandomTraceOptions atomics = options;
  atomics.atomics = true;
  atomics.read_locks = true;
  atomics.thread_begin_end = true;
  Tally tally;
  CompareBySites(atomics, false, 13000, 400, &tally);
  Print("shared sites (atomics, read locks)", tally);
  CHECK(tally.anomalies >= 50);
}

TEST_CASE("Oracle: PECAN Figure 5 is the kind of false prediction the hybrid model makes",
          "[oracle]") {
  // v3 and v8 share no lock and are not POR-ordered, so the analyzer predicts the race; but to
  // run them back to back T1 must take l (v6) while T0 still holds it: no schedule does.
  std::istringstream text(R"(T0|acq(l)|1
T0|hbrel(k)|2
T0|w(x)|3
T0|rel(l)|4
T1|hbacq(k)|5
T1|acq(l)|6
T1|rel(l)|7
T1|r(x)|8
)");
  const Trace trace = ImportStd(text, "figure5.std");
  BruteForceOracle oracle(trace);
  CHECK(oracle.Anomalies().empty());
  AnalysisOptions options;
  options.patterns = "race";
  const auto findings = Analyze(trace, options).findings;
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].events == std::vector<EventIndex>{2, 7});
}

TEST_CASE("Oracle: two events of one thread moved together into an earlier slot", "[oracle]") {
  // T1's w(x) at 5 already sits inside T0's region, but T0 holds n from 3 to 7, so T1's w(y) at
  // 10 (under n) fits nowhere after it; both fit before T0 takes n (slot of event 3):
  // 2 5 10 6 is W(l1) W'(l1) W'(l2) W(l2).
  std::istringstream text(R"(T0|fork(T1)|1
T0|acq(k)|2
T0|w(x)|3
T0|acq(n)|4
T1|acq(m)|5
T1|w(x)|6
T0|w(y)|7
T0|rel(n)|8
T0|rel(k)|9
T1|acq(n)|10
T1|w(y)|11
T1|rel(n)|12
T1|rel(m)|13
)");
  const Trace trace = ImportStd(text, "pair.std");
  BruteForceOracle oracle(trace);
  const OracleAnomaly anomaly{"asv", "W(l1) W'(l1) W'(l2) W(l2)", {2, 5, 10, 6}};
  REQUIRE(oracle.Witness(anomaly).has_value());
  AnalysisOptions options;
  options.patterns = "asv";
  const auto findings = Analyze(trace, options).findings;
  bool predicted = false;
  for (const Finding& f : findings) predicted |= SameAnomaly(anomaly, f);
  CHECK(predicted);
}

TEST_CASE("Parallel search: the same findings, ids and order on any number of threads",
          "[oracle][analysis]") {
  RandomTraceOptions options;
  options.min_threads = 3;
  options.min_events = 16;
  options.max_events = 22;
  options.max_variables = 3;
  RandomTraceGenerator generator(options);
  int findings = 0;
  for (uint64_t seed = 17000; seed < 17100; ++seed) {
    const Trace trace = WithSharedSites(generator.Generate(seed), seed % 2 == 0);
    INFO("seed " << seed << "\n" << DescribeTrace(trace));
    AnalysisOptions serial;
    serial.threads = 1;
    const std::vector<Finding> expected = Analyze(trace, serial).findings;
    findings += static_cast<int>(expected.size());
    for (unsigned threads : {2u, 4u, 4u, 16u}) {
      AnalysisOptions parallel;
      parallel.threads = threads;
      const std::vector<Finding> got = Analyze(trace, parallel).findings;
      REQUIRE(got.size() == expected.size());
      for (size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].id == expected[i].id);
        CHECK(got[i].pattern == expected[i].pattern);
        CHECK(got[i].events == expected[i].events);
        CHECK(got[i].overtaken == expected[i].overtaken);
        CHECK(got[i].witnesses == expected[i].witnesses);
      }
    }
  }
  CHECK(findings >= 100);
}
