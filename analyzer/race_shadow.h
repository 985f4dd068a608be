// Shadow memory for the vector-clock race detectors (happens_before_races.cpp, wcp_races.cpp):
// per 8-byte granule the accesses still racy, checked against the clock of what the current
// event is known to come after, and the races found, deduplicated per pair of sites.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

// Clocks hold, per thread u, one more than the local index of the last event of u known to come
// before (0: none) — the encoding of PorIndex, so an event's epoch is its local index + 1.
using VectorClock = std::vector<uint32_t>;

inline void JoinClock(VectorClock& into, const VectorClock& from) {
  for (size_t u = 0; u < into.size(); ++u) into[u] = into[u] < from[u] ? from[u] : into[u];
}

// One race a detector found: two accesses of different threads to overlapping bytes, at least
// one a write, not both atomic, that the detector's order leaves unordered. A FREE is a write of
// its whole block (`second`) to the accesses before it.
struct ClockRace {
  EventIndex first = 0;   // the earlier access in the trace
  EventIndex second = 0;  // the later access
  // Racing pairs detected with the same two sites (as an unordered pair), this one included;
  // only the first pair (smallest `second`, then smallest `first`) is kept.
  uint64_t occurrences = 1;
};

// What is reported: every access is checked against the latest earlier access of each other
// thread that touched the same bytes (the latest write, and the latest read when the access
// writes); an earlier access of that thread on the same bytes is only reported when the latest
// one does not cover them. A write ordered after an access removes that access from the bytes it
// covers (FastTrack). ALLOC and FREE forget their block: a reused address is a new location.
class RaceShadow {
 public:
  explicit RaceShadow(const Trace& trace) : trace_(trace) {}

  // Event i of thread t with `epoch`, coming after what `known` says of each other thread. An
  // access is checked and recorded; ALLOC forgets its block; FREE is checked as a write of its
  // block, then forgets it. Other events are ignored.
  void Visit(EventIndex i, ThreadId t, uint32_t epoch, const VectorClock& known);

  std::vector<ClockRace> TakeRaces() { return std::move(races_); }

 private:
  struct Record {
    EventIndex event = 0;
    ThreadId thread = 0;
    uint32_t epoch = 0;
    uint8_t bytes = 0;  // mask of the granule's bytes this record still stands for
    bool write = false;
    bool atomic = false;
  };
  // The records of one granule: an access stands for its bytes until a later access that comes
  // after it and dominates it for every future check removes them (see Dominates).
  using Granule = std::vector<Record>;

  void CheckAndRecord(const Record& access, uint64_t addr, uint32_t size,
                      const VectorClock& known);
  void CheckGranule(Granule& granule, const Record& access, uint8_t bytes,
                    const VectorClock& known);
  static bool Dominates(const Record& access, const Record& r);
  void Forget(uint64_t addr, uint32_t size, const std::function<void(const Record&)>& check);
  void ReportFound(EventIndex later);

  const Trace& trace_;
  std::unordered_map<uint64_t, Granule> shadow_;   // by granule number (address >> 3)
  std::vector<EventIndex> found_;                  // racing earlier accesses of the current one
  std::unordered_map<uint64_t, size_t> by_sites_;  // site pair -> index in races_
  std::vector<ClockRace> races_;
};

}  // namespace pecan
