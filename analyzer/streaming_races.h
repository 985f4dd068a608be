// The race search in one pass over the events, in memory bounded by the program's state —
// threads, held locks, locations and their access classes — not by the trace's length: each
// access class keeps only its latest member, because for an access b the members of another
// class ordered before b are a prefix of it, so the latest one is the only one to test.
//
// It finds exactly what SearchPatternGroup finds for a group of race-shaped patterns on the
// trace ReadTraceForAnalysis keeps (pattern_search.cpp's race sweep: back-to-back pairs of
// the trace first, then per pair of access classes the earliest access b of one with an access
// of the other not ordered before it, and FREEs against classes), with the same witnesses,
// witness counts and candidate counts. Where the sweep's order matters (a pair of classes is
// not searched for patterns that already have an observed witness of its sites), the results of
// each location are replayed at the end in the sweep's order.
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

// A pattern the race sweep searches: two events on one variable, back to back, in either order.
bool IsRaceShaped(const Pattern& pattern);

// Per kept location (`guards`: KeptAccesses::GuardsOf): whether every access holds one lock in
// write mode and no FREE touches its bytes (`frees`: KeptAccesses::Frees). No two of its
// accesses can race, so the race search follows only its back-to-back pairs, for the count of
// candidates, and needs no access classes there.
std::vector<uint8_t> RaceGuardedLocations(
    const std::vector<AccessGuards>& guards,
    const std::vector<std::pair<EventIndex, LocationId>>& frees);

// One group of race-shaped patterns of one shape (at most 32), fed the events the analysis keeps
// in trace order (streaming_analysis.cpp drives it).
class RaceSearch {
 public:
  // `location_count` kept locations; `locks` is fed every event too, after the searches;
  // `guarded` (RaceGuardedLocations, one per kept location) outlives the search. With `owner`
  // (per location, its shard: RaceShards), the search follows only shard `shard`'s locations and
  // holds state for no other (until Absorb).
  RaceSearch(const std::vector<const Pattern*>& group, size_t location_count,
             const std::vector<uint8_t>& guarded, HeldLocks* locks, uint32_t max_per_site,
             const std::vector<uint8_t>* owner = nullptr, uint8_t shard = 0);
  ~RaceSearch();
  RaceSearch(RaceSearch&&) noexcept;
  RaceSearch& operator=(RaceSearch&&) noexcept;

  // Access `i` of kept location `l`, which `info` describes; `cls` its access class (the search
  // numbers the classes of a location it follows itself, in order of first access, as
  // AccessClassIds would, and provides the number to `cls`); `lockset` (HeldLocks::Current) and
  // `local` (PorStep::local) are its thread's held locks and POR position at it, after `por` was
  // fed it; `last_of_bytes`: no later access touches just its bytes
  // (KeptAccesses::IsLastAccessOfBytes).
  void Access(EventIndex i, const Event& e, LocationId l, const LocationInfo& info,
              AccessClassLookup& cls, uint32_t lockset, uint32_t local, bool last_of_bytes,
              const PorClocks& por);
  // Asks the cache for what an access of location `l` soon will read first.
  void Prefetch(LocationId l) const;
  // Event `i` FREEs (part of) location `l` (KeptAccesses::Frees).
  void Free(EventIndex i, const Event& e, LocationId l, uint32_t lockset, uint32_t local,
            const PorClocks& por);
  // No later access touches location `l` (KeptAccesses::LastAccesses), only FREEs may: what
  // the pairing of its accesses needed is freed.
  void Seal(LocationId l);
  // No later event uses location `l` (KeptAccesses::LastUses): its state is freed.
  void Retire(LocationId l);
  // Takes from `other`, a search of the same group fed the same events that followed another
  // shard's locations (both made with `owner`), its locations: their results are recorded by
  // Finish with this one's, in the order of the locations' numbers, as if this search had
  // followed them all. `other` is left empty.
  void Absorb(RaceSearch&& other);
  // The findings, in the recorded trace's numbers, without ids; adds to the stats' candidate
  // and capped counts.
  std::vector<Finding> Finish(PatternSearchStats* stats);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
