// The search of the four-event shape — an access e0 of an atomic region, two accesses of one
// region of another thread, the first region's access e3 to the other location: the two-location
// atomic-set violations — in one pass over the events, without the trace in memory.
//
// It finds exactly what SearchPatternGroup finds for such a group on the trace
// ReadTraceForAnalysis keeps (pattern_search.cpp: BindFirstInRegions, BindInUnit, ClassesOf's
// region pairs, ResolveClass and CanReorder), with the same witnesses, witness counts, reasons and
// candidate counts. A unit (e0, e3) is resolved against the pair classes of its location pair once
// no thread's later events can fit its window: every other thread knows e3 (PorClocks::
// LeastKnown), or neither location is accessed again, or the trace ends. Members of a pair class
// are dropped once every thread knows their first event, since then no unit formed later can take
// them. What the first pass knows of each location's locks and threads (KeptAccesses::TrackGuards)
// spares the rest: no unit is made whose window holds, at every slot, the lock every region access
// to its x1 location holds (no class could pair with it), and neither a unit nor a pair on a
// location that no other thread accesses in regions: a program whose threads meet only at locks
// would otherwise keep every unit until its locations' last accesses. The order in which
// SearchPatternGroup meets the matches (unit, lock bucket, class, where a class ranks by its first
// region pair) is kept, so ties between witnesses and hunt's per-site bound come out the same.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "analyzer/access_class_ids.h"
#include "analyzer/access_locations.h"
#include "analyzer/finding.h"
#include "analyzer/held_locks.h"
#include "analyzer/pattern.h"
#include "analyzer/pattern_search.h"
#include "analyzer/por_clocks.h"

namespace pecan {

// t1 t2 t2 t1 on two variables, each of which both threads access; the t1 events in one region,
// the t2 events in another; neither adjacent nor unordered. The built-in two-location asv
// patterns.
bool IsPairShaped(const Pattern& pattern);

// Groups (at most 32 patterns each) of pair-shaped patterns, searched with one enumeration of the
// region pairs, fed every event the analysis keeps.
class PairSearch {
 public:
  // `guards`: per location, from a first pass over the whole trace (KeptAccesses::GuardsOf): a
  // unit no pair class can ever complete is not kept, nor a pair no unit can ever take.
  PairSearch(const std::vector<std::vector<const Pattern*>>& groups,
             const std::vector<LocationInfo>& infos, const std::vector<AccessGuards>& guards,
             HeldLocks* locks, uint32_t max_per_site);
  ~PairSearch();
  PairSearch(PairSearch&&) noexcept;

  // Event `i`, after PorClocks::Visit (`step` is its answer) and before HeldLocks::Visit
  // (`lockset` is HeldLocks::Current at it). `l`: its kept location if it is an access, else
  // kNoLocation; `cls`: then its access class (numbered once a search asks: this one asks where
  // the class's number may name a pair class), else null; `region`: RegionScopes::Visit's answer
  // (RegionMode::kLocks).
  void Visit(EventIndex i, const Event& e, LocationId l, AccessClassLookup* cls, uint32_t lockset,
             PorStep step, RegionId region, const PorClocks& por);
  // Whether Visit may ask `cls` for the class of an access to location `l` (else it never does).
  bool AsksClasses(LocationId l) const;
  // No later access touches location `l` (KeptAccesses::LastAccesses).
  void Seal(LocationId l);
  // Per group, its findings, in the recorded trace's numbers, without ids; `threads` names the
  // threads in reasons. Adds to the stats' candidate and capped counts.
  std::vector<std::vector<Finding>> Finish(const std::vector<ThreadInfo>& threads,
                                           PatternSearchStats* stats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
