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

// Accesses of one thread to one location at one site, with one kind, the same set of lock
// addresses and no thread-communication event between them. Any member can stand for any
// other in every POR and lockset test: POR clocks change only at thread-communication events
// (which sit alone in their epochs), and lock exclusion depends only on lock addresses.
struct AccessGroup {
  ThreadId thread = 0;
  SiteId site = 0;
  EventKind kind = EventKind::kUnspecified;
  uint32_t lock_key = 0;       // id of the set of (lock address, read mode) held
  uint64_t first_member = 0;   // index into AnalysisContext::group_members
  uint64_t member_count = 0;
};

// A contiguous run of one location's accesses by one thread, in AnalysisContext::by_thread.
struct ThreadRun {
  ThreadId thread = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
};

class AnalysisContext {
 public:
  AnalysisContext(const Trace& trace, RegionMode regions);

  const Trace& trace;
  PorIndex por;
  LocksetTable locksets;
  LocationTable locations;
  RegionTable regions;

  // Per LocksetId: the id of its set of lock addresses (acquisition points ignored).
  std::vector<uint32_t> lock_key_of_lockset;
  uint32_t LockKey(EventIndex i) const { return lock_key_of_lockset[locksets.Of(i)]; }

  // Per location: its accesses sorted by (thread, trace order), with one run per thread.
  std::vector<EventIndex> by_thread;
  std::vector<ThreadRun> runs;
  std::vector<uint64_t> run_offsets;  // location l's runs: [run_offsets[l], run_offsets[l+1])

  // Per location: its access groups (in order of first member), members in trace order.
  std::vector<AccessGroup> groups;
  std::vector<uint64_t> group_offsets;
  std::vector<EventIndex> group_members;

  // Per region: its accesses to shared locations, in trace order.
  std::vector<EventIndex> region_accesses;
  std::vector<uint64_t> region_offsets;

  // Pairs of groups whose members ran back to back on their location (a dashed PTG edge
  // between different threads): (earlier group, later group) -> the first such pair.
  std::unordered_map<uint64_t, std::pair<EventIndex, EventIndex>> adjacent_group_pairs;
  static uint64_t GroupPairKey(uint64_t a, uint64_t b) { return (a << 32) ^ b; }

  // The run of thread t on location l, or nullptr.
  const ThreadRun* RunOf(LocationId l, ThreadId t) const;
  // True when no other access to the location of a and b lies between them in the trace.
  bool TorAdjacent(EventIndex a, EventIndex b) const;
};

}  // namespace pecan
