// RaceShards: the streaming race search split over threads by location. Shard 0 is the caller's
// own race searches (the main loop's); each other shard is a thread with its own RaceSearch of
// every race group, fed the same events: it keeps its own POR clocks and held locks (fed every
// event, so their positions and lock-set numbers are the main loop's), and searches the
// accesses, FREEs and ends of the locations it owns. No location is in two shards, and a race
// search records its results only when it finishes, location by location in the order of their
// numbers (RaceSearch::Absorb gathers them in shard 0's searches): the findings, witnesses and
// counts are those of one search fed everything.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/access_locations.h"
#include "analyzer/pattern.h"
#include "analyzer/pattern_search.h"
#include "analyzer/streaming_races.h"
#include "trace_format/trace.h"

namespace pecan {

// What the shards need of the analysis, all of it read-only while they run.
struct RaceShardInputs {
  // The race groups, in the order their findings are returned.
  std::vector<std::vector<const Pattern*>> groups;
  const std::vector<LocationInfo>* infos = nullptr;
  const std::vector<uint8_t>* guarded = nullptr;                          // RaceGuardedLocations
  const std::vector<std::pair<EventIndex, LocationId>>* frees = nullptr;  // KeptAccesses::Frees
  const std::vector<EventIndex>* last_accesses = nullptr;  // KeptAccesses::LastAccesses
  const std::vector<EventIndex>* last_uses = nullptr;      // KeptAccesses::LastUses
  // Locations by their last access, and by their last use (as the main loop seals and retires).
  const std::vector<LocationId>* sealing = nullptr;
  const std::vector<LocationId>* retiring = nullptr;
  // Per location, the shard that follows it (0: the caller).
  const std::vector<uint8_t>* owner = nullptr;
  // PorClocks' arguments.
  uint32_t thread_count = 0;
  std::unordered_map<uint64_t, uint64_t> semaphore_initial;
  std::vector<EventIndex> final_event;
  std::vector<ThreadId> forker;
  uint32_t max_per_site = 0;
};

// Before the analysis's first allocations, and before any thread of the process allocates: the
// threads allocate from one heap (glibc: one malloc arena), so that the shards reuse what the
// first pass freed. With an arena of its own a shard's memory came on top of it (pcompress 8 MiB:
// 594 MB at the peak instead of 551 MB; MALLOC_ARENA_MAX=1 in the environment does the same).
void ShareOneHeap();

class RaceShards {
 public:
  // Shards 1 .. `shards` - 1, each a thread, started now.
  RaceShards(RaceShardInputs inputs, unsigned shards);
  // Stops the threads (without their results, if Finish did not run).
  ~RaceShards();
  RaceShards(const RaceShards&) = delete;
  RaceShards& operator=(const RaceShards&) = delete;

  // Feeds event `i`, in trace order: every event the analysis keeps (not the accesses of dropped
  // locations), with its location `l` (kNoLocation: none) and, for an access,
  // KeptAccesses::IsLastAccessOfBytes. Throws what a shard threw, once it did.
  void Feed(EventIndex i, const Event& e, LocationId l, bool last_of_bytes);
  // Waits for the shards to see every event fed, then gives the locations each followed to
  // `searches`, shard 0's (one per group, in the order of RaceShardInputs::groups), whose Finish
  // then reports them all. Throws what a shard threw.
  void Finish(std::vector<RaceSearch>* searches);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
