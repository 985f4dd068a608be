// AnalysisContext: every index the pattern search reads, built once per trace — POR, locksets,
// shared locations, atomic regions, and the accesses grouped into interchangeable classes.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "analyzer/access_locations.h"
#include "analyzer/analysis.h"
#include "analyzer/atomic_regions.h"
#include "analyzer/lockset_table.h"
#include "analyzer/por_index.h"
#include "trace_format/trace.h"

namespace pecan {

// Accesses of one thread to one location at one site, of one kind, under the same set of lock
// addresses (and, where the location's accesses differ in byte range, to the same bytes): an
// access class. Members differ only in time. Every test the search makes against
// a fixed other event x is monotone over the members (x ->POR m holds for a suffix of them,
// m ->POR x for a prefix, lock exclusion for all or none), so the search pairs classes, not
// accesses, and picks a member by binary search.
struct AccessClass {
  ThreadId thread = 0;
  SiteId site = 0;
  EventKind kind = EventKind::kUnspecified;
  LocksetId lockset = kEmptyLockset;  // of the first member; all members hold the same addresses
  uint32_t lock_key = 0;              // id of the set of (lock address, read mode) held
  uint64_t first_member = 0;          // index into AnalysisContext::class_members
  uint64_t member_count = 0;
  uint64_t begin = 0;  // the bytes every member accesses: [begin, end)
  uint64_t end = 0;
};

// A contiguous run of one location's accesses by one thread, in AnalysisContext::by_thread.
struct ThreadRun {
  ThreadId thread = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
};

class AnalysisContext {
 public:
  // Builds the four base indices (on two threads when `parallel`), then the derived ones.
  // `filter` says which locations to keep (Analyze derives it from the selected patterns).
  AnalysisContext(const Trace& trace, RegionMode regions, bool parallel = true,
                  const LocationFilter& filter = {});

  const Trace& trace;
  PorIndex por;
  LocksetTable locksets;
  LocationTable locations;
  RegionTable regions;

  // The id of the set of lock addresses held at i (acquisition points ignored).
  uint32_t LockKey(EventIndex i) const { return locksets.AddressSetOf(locksets.Of(i)); }

  // Per location: its accesses sorted by (thread, trace order), with one run per thread.
  std::vector<EventIndex> by_thread;
  std::vector<ThreadRun> runs;
  std::vector<uint64_t> run_offsets;  // location l's runs: [run_offsets[l], run_offsets[l+1])

  // Per location: its access classes (in order of first member), members in trace order.
  std::vector<AccessClass> classes;
  std::vector<uint64_t> class_offsets;
  std::vector<EventIndex> class_members;
  const EventIndex* MembersBegin(uint64_t c) const {
    return class_members.data() + classes[c].first_member;
  }
  const EventIndex* MembersEnd(uint64_t c) const {
    return MembersBegin(c) + classes[c].member_count;
  }

  // Per shared access: its class (index into classes); kNoClass for other events.
  static constexpr uint32_t kNoClass = ~0u;
  std::vector<uint32_t> class_of;

  // Per region: its accesses to shared locations, in trace order, with their locations beside
  // them (read together when pairing the events of a region).
  std::vector<EventIndex> region_accesses;
  std::vector<LocationId> region_access_locations;
  std::vector<uint64_t> region_offsets;

  // The run of thread t on location l, or nullptr.
  const ThreadRun* RunOf(LocationId l, ThreadId t) const;
  // True when no other access to the location of a and b lies between them in the trace.
  bool TorAdjacent(EventIndex a, EventIndex b) const;
  // Whether accesses a and b of location l touch a common byte (conflict, if one writes):
  // always on a single-range location, else by their byte ranges (a location merges ranges
  // transitively, so [0,8) and [8,16) can share one when [0,16) is accessed too).
  bool OverlapOn(LocationId l, EventIndex a, EventIndex b) const {
    return locations.Info(l).single_range || RangesOverlap(a, b);
  }
  // The same for two access classes (every member of a class touches the same bytes).
  static bool Overlap(const AccessClass& a, const AccessClass& b) {
    return a.begin < b.end && b.begin < a.end;
  }
  // Whether the byte ranges of two accesses intersect (sizes of 0 count as 1 byte).
  bool RangesOverlap(EventIndex a, EventIndex b) const;

 private:
  struct BaseIndices;
  AnalysisContext(const Trace& trace, BaseIndices&& base);
  static BaseIndices BuildBase(const Trace& trace, RegionMode regions, bool parallel,
                               const LocationFilter& filter);
};

}  // namespace pecan
