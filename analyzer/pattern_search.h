// PatternSearch: finds every match of one pattern on the PTG, observed in the trace or reachable
// by mutation (PECAN section 5.2), deduplicated by site tuple with the cheapest witness kept.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis_context.h"
#include "analyzer/finding.h"
#include "analyzer/pattern.h"

namespace pecan {

struct PatternSearchStats {
  uint64_t candidates = 0;  // complete matches of the pattern's shape examined
  uint64_t capped = 0;      // site tuples left out by `max_per_site`
  uint64_t windowed = 0;    // unit scans cut at kMaxUnitScan accesses (pattern_search.cpp)
  uint64_t steps = 0;       // candidates (events, classes, locations) the matcher tried
  // "name variant" of the patterns whose search `max_steps` stopped: their findings are the
  // ones found before it, possibly not all.
  std::vector<std::string> stopped;
};

// Runs `pattern` over the context. Findings carry pattern, variant, observed, events, overtaken,
// reason and witnesses; ids are assigned by the caller (MakeFindingId).
// With `max_per_site` > 0, a site takes part in at most that many findings of one pattern: a
// new site tuple with a site already in that many is left out (counted in stats->capped), so a
// hot loop cannot produce thousands of near-identical findings. Which tuples are kept depends only
// on the trace (the search order), not on timing.
std::vector<Finding> SearchPattern(const AnalysisContext& context, const Pattern& pattern,
                                   PatternSearchStats* stats, uint32_t max_per_site = 0);

// Which patterns of a group (a bit each; at most 32) an event of each kind fits at each position
// of their shape. A FREE is a plain write of its whole block (LocationTable::FreesBegin); only
// races pair it.
class KindMasks {
 public:
  explicit KindMasks(const std::vector<const Pattern*>& group);
  uint32_t Of(uint32_t position, EventKind kind) const {
    return masks_[position][static_cast<uint8_t>(kind)];
  }
  // For a race-shaped group: the patterns two events of these kinds match, in trace order; none
  // when the group wants a plain access and neither is one (a FREE counts as plain).
  uint32_t Race(EventKind first, EventKind second) const;

 private:
  std::vector<std::array<uint32_t, kEventKindCount>> masks_;  // [position][kind]
  bool some_plain_ = false;
};

// Reasons of 3- and 4-event findings: observed ones, and moved ones, whose clauses (one per
// moved event: "T2's write #41 can run just before T1's unlock #40") end with the rule.
inline constexpr const char* kObservedReason =
    "observed: the events ran in this order in the recorded run";
inline constexpr const char* kMovedReasonEnd = " (no common lock, no happens-before order)";
// An event as a reason names it: its thread (by name if it has one), what it does, and its
// number in the recorded trace.
std::string DescribeEvent(const std::vector<ThreadInfo>& threads, ThreadId t, EventKind kind,
                          EventIndex recorded);
// `moved` can run just before (or after) `anchor`.
std::string MoveClause(const std::string& moved, bool before, const std::string& anchor);

// Patterns that differ only in access types (and names) have the same shape; a group of them
// is searched with one enumeration of the trace.
bool SameShape(const Pattern& a, const Pattern& b);
// Of two witnesses of one site tuple, whether the first is kept: an observed one, then the one
// whose schedule ends sooner (its latest event), then the one spanning fewer events.
bool BetterWitness(bool observed, uint64_t last, uint64_t window, bool other_observed,
                   uint64_t other_last, uint64_t other_window);
// `patterns` in groups of one shape (SameShape), in order of first appearance.
std::vector<std::vector<const Pattern*>> GroupByShape(const std::vector<Pattern>& patterns);
// With `max_steps` > 0 the event-by-event matcher stops after that many steps (candidates tried,
// counted in stats->steps) and keeps what it found: a pattern with free locations or many
// threads can otherwise cost a power of the trace length. The steps are counted in the search
// order, so where it stops depends only on the trace and the group. The race sweep
// (adjacent, unordered, two events) is class-based and never stopped.
std::vector<Finding> SearchPatternGroup(const AnalysisContext& context,
                                        const std::vector<const Pattern*>& group,
                                        PatternSearchStats* stats, uint32_t max_per_site = 0,
                                        uint64_t max_steps = 0);

}  // namespace pecan
