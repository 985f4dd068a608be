// The search of the three-event shape — an access of an atomic region, an access of another
// thread, the region's next access to the same bytes: the atomicity violations and the
// one-location atomic-set violations — in one pass over the events, without the trace in memory.
//
// It finds exactly what SearchPatternGroup finds for such a group on the trace
// ReadTraceForAnalysis keeps (pattern_search.cpp: BindFirstInRegions, BindInUnit, BindUnitClass,
// ResolveClass), with the same witnesses, witness counts, reasons and candidate counts. When the
// region's second access e2 runs, each access class of another thread on the location is
// resolved from its members so far, except for what only its next member can tell: whether a
// member after e2 fits the window's highest slot its locks allow. That waits for the member (or
// for the location's end); a class that appears after e2 is tried against the unit when it does
// (until the location's last new class that could complete one, which the first pass finds:
// KeptAccesses::TrackClasses; a class of the units' own thread, or of a thread that joined it
// after its end, cannot).
// A unit whose window holds, at every slot, the lock every access to the location holds is not
// made at all: no class could pair with it (KeptAccesses::TrackGuards). The order in which
// SearchPatternGroup meets the matches (region, position in the region, lock bucket, class) is
// kept as a key, so ties between witnesses and hunt's per-site bound come out the same.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "analyzer/access_class_ids.h"
#include "analyzer/access_locations.h"
#include "analyzer/atomic_regions.h"
#include "analyzer/finding.h"
#include "analyzer/held_locks.h"
#include "analyzer/pattern.h"
#include "analyzer/pattern_search.h"
#include "analyzer/por_clocks.h"

namespace pecan {

// t1 t2 t1 on one variable; the t1 events in one region, the t2 event in a region of its own;
// neither adjacent nor unordered. The built-in atomicity and one-location asv patterns.
bool IsUnitShaped(const Pattern& pattern);

// One group (at most 32 patterns) of unit-shaped patterns, fed every event the analysis keeps.
class UnitSearch {
 public:
  // `last_new_classes`: KeptAccesses::LastNewClasses (after it no unit waits for new classes);
  // `guards`: KeptAccesses::GuardsOf (a unit no class can ever complete is not kept).
  UnitSearch(const std::vector<const Pattern*>& group, const std::vector<LocationInfo>& infos,
             const std::vector<EventIndex>& last_new_classes,
             const std::vector<AccessGuards>& guards, HeldLocks* locks, uint32_t max_per_site);
  ~UnitSearch();
  UnitSearch(UnitSearch&&) noexcept;

  // Event `i`, after PorClocks::Visit (`step` is its answer) and before HeldLocks::Visit
  // (`lockset` is HeldLocks::Current at it). `l`: its kept location if it is an access, else
  // kNoLocation; `cls`: then its access class (numbered once a search asks: this one asks on
  // every access of a location it follows), else null; `region`: RegionScopes::Visit's answer
  // (RegionMode::kLocks); `last_of_bytes`: no later access touches just its bytes
  // (KeptAccesses::IsLastAccessOfBytes).
  void Visit(EventIndex i, const Event& e, LocationId l, AccessClassLookup* cls, uint32_t lockset,
             PorStep step, RegionId region, bool last_of_bytes, const PorClocks& por);
  // Whether Visit may ask `cls` for the class of an access to location `l` (else it never does).
  bool AsksClasses(LocationId l) const;
  // No later access touches location `l` (KeptAccesses::LastAccesses).
  void Seal(LocationId l);
  // The findings, in the recorded trace's numbers, without ids; `threads` names the threads in
  // reasons. Adds to the stats' candidate and capped counts.
  std::vector<Finding> Finish(const std::vector<ThreadInfo>& threads, PatternSearchStats* stats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
