// The analyzer's entry point: from one trace, every access anomaly (race, atomicity violation,
// atomic-set serializability violation, user pattern) some feasible reordering could show.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/access_locations.h"
#include "analyzer/finding.h"
#include "analyzer/suppressions.h"
#include "trace_format/trace.h"

namespace pecan {

enum class RegionMode {
  kLocks,      // outermost critical sections + annotated regions (PECAN's atomic regions)
  kFunctions,  // additionally, each function invocation (FUNC_ENTRY..FUNC_EXIT) is a region
};

// A few seconds of search (a step costs 50-150 ns): 20 times what the 4-event patterns of the
// tests need on 11 K events, while a pattern whose search is a power of the trace length (the
// issue's ping-pong, days on 11 K events) stops in about 3 s.
inline constexpr uint64_t kDefaultMaxPatternWork = 20'000'000;

struct AnalysisOptions {
  // Comma-separated built-in pattern families ("race", "atomicity", "asv", "all") and/or the
  // path of a user pattern file. Empty means all built-ins.
  std::string patterns = "all";
  RegionMode regions = RegionMode::kLocks;
  // Show a progress indicator on a terminal (and, in a log, a line every 30 s of a long one).
  bool progress = false;
  // Threads for the analysis: the indices are built on two and the pattern groups searched on
  // this many (0 = one per core); the streaming analysis splits its race search over this many
  // (0 = one per core the process may run on, at most 4; RaceShards). 1 runs everything on the
  // calling thread. The result is the same whatever the number.
  unsigned threads = 0;
  // At most this many findings of one pattern share a site (0: no bound); the others are
  // counted in stats.capped. hunt bounds them, so a hot loop cannot fill its replays.
  uint32_t max_per_site = 0;
  // The search of a group of user patterns stops after this many matcher steps (candidate
  // events, classes and locations tried; 0: no bound) and keeps the findings found so far (in
  // stats.stopped_patterns). A 4-event pattern with free locations costs up to the 4th power of
  // a thread's accesses; the built-in families are class-based and never stopped.
  uint64_t max_pattern_work = kDefaultMaxPatternWork;
  // --suppressions: findings a rule hides are left out (counted in stats.suppressed).
  std::shared_ptr<const Suppressions> suppressions;
};

struct AnalysisStats {
  uint64_t events = 0;
  uint64_t shared_locations = 0;
  uint64_t candidates = 0;  // matches examined before deduplication
  uint64_t suppressed = 0;  // findings --suppressions hid
  uint64_t capped = 0;      // site tuples AnalysisOptions::max_per_site left out
  // Scans of a long atomic region cut short: two-location patterns pair a region's accesses only
  // up to 128 accesses apart (pattern_search.cpp, kMaxUnitScan), so a function that runs a
  // whole loop under --regions functions costs a window per access, not a square.
  uint64_t windowed = 0;
  // User patterns ("name variant") whose search AnalysisOptions::max_pattern_work stopped after
  // pattern_work_bound steps: their findings may be incomplete.
  std::vector<std::string> stopped_patterns;
  uint64_t pattern_work_bound = 0;
  double seconds_total = 0;
  // e.g. {"index", 1.2}, {"race", 0.4}: "index" is building the shared indices; a family's
  // seconds are its search time (patterns of one shape are searched together and split their
  // time by pattern count; with several threads the families overlap in wall time).
  std::vector<std::pair<std::string, double>> seconds_by_family;
};

struct AnalysisResult {
  std::vector<Finding> findings;  // deduplicated by site tuple, cheapest witness kept
  AnalysisStats stats;
};

// Throws PecanError for a bad pattern spec or pattern file.
AnalysisResult Analyze(const Trace& trace, const AnalysisOptions& options);

// The last steps of Analyze on its findings (events numbered as in `trace`): a single-location
// atomic-set violation that repeats an atomicity violation is dropped, ids are given
// (MakeFindingId) and --suppressions applied. For a search that does not go through Analyze
// (streaming_analysis.h), on a trace holding the findings' events.
void FinishFindings(const Trace& trace, const AnalysisOptions& options, AnalysisResult* result);

// The locations the selected patterns can use (PECAN section 5.1's pre-filter, per pattern
// variable): the accesses to other locations play no part in the analysis. Throws PecanError
// like Analyze for a bad pattern spec.
LocationFilter LocationFilterFor(const AnalysisOptions& options);

}  // namespace pecan
