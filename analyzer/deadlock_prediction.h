// Lock-order deadlock prediction (pattern `deadlock`): cycles of the trace's lock-order graph
// whose nested acquisitions some feasible reordering can bring to a standstill together.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/finding.h"
#include "analyzer/lockset_table.h"
#include "analyzer/por_clocks.h"
#include "analyzer/por_index.h"
#include "trace_format/trace.h"

namespace pecan {

// How it works. Every acquisition of a lock l2 while the thread holds l1 is an edge l1 -> l2 of
// the lock-order graph (one instance per thread, pair of sites and set of locks held; the
// first and last occurrence are kept). Cycles are searched only inside its strongly connected
// components (Boost.Graph), up to kMaxCycleLocks locks. A lock cycle l1 -> l2 -> ... -> l1 is
// a deadlock when one instance per edge can be chosen such that, pairwise:
//   - the threads differ (a thread cannot wait for itself across a cycle);
//   - the locks each thread holds at its request share no lock that excludes the other's
//     (a guard lock held around both nestings makes the state unreachable; so does holding
//     the same lock);
//   - no request is ordered by POR (fork/join, notify/wait, barriers, ...) before the event
//     that precedes the other thread's request: every thread can stand just before its request
//     at once;
//   - each request really blocks on its holder: not a trylock/timedlock, and not a read
//     request of an rwlock its holder holds for reading too.
// A recursive re-acquisition of a held lock is not an edge. Findings are deduplicated by their
// sites (rotation-independent): the events are, per thread of the cycle, the acquisition of
// the lock it holds and its request for the next one.
//
// The graph is fed one lock request at a time in trace order, so it is built the same way from
// the indexed trace (PredictDeadlocks) and from a stream of events (streaming_analysis.h); what
// it keeps is bounded by the program's locks, threads and sites, not by the trace's length.
struct DeadlockSearchStats {
  uint64_t edges = 0;   // distinct edge instances kept
  uint64_t cycles = 0;  // lock cycles examined
};

inline constexpr size_t kMaxCycleLocks = 8;
// Bounds on the search, which is exponential in the worst case: past them, the remaining
// cycles are not examined (the stats say how many were).
inline constexpr uint64_t kMaxLockCycles = 20'000;
inline constexpr uint64_t kMaxAssignmentSteps = 2'000'000;

// A clock of the POR (PorClocks::CurrentClock's form): entry u is one more than the local index
// of the last event of thread u ordered before the event it belongs to.
using PorClock = ClockSnapshot;

// A LOCK or READ_LOCK event, as the graph needs it.
struct LockRequest {
  EventIndex event = 0;
  ThreadId thread = 0;
  EventKind kind = EventKind::kLock;
  uint8_t flags = 0;  // the event's: bit 0 marks a trylock or timed lock
  uint64_t lock = 0;
  SiteId site = 0;
  uint32_t local = 0;       // its place in its thread (0: the thread's first event)
  uint32_t held_locks = 0;  // the address set held at it (0: none)
};

// A lock the requesting thread holds, acquired at `acquired_at`.
struct HeldLockAt {
  uint64_t lock = 0;
  bool read_mode = false;
  EventIndex acquired_at = 0;
  SiteId site = 0;
};

class LockOrderGraph {
 public:
  // Adds request `r`'s nestings in the locks `held` (outermost first), requests in trace order.
  // `before_clock` gives the clock of the thread's event before `r`; it is asked only when an
  // instance is kept.
  void AddRequest(const LockRequest& r, const std::vector<HeldLockAt>& held,
                  const std::function<PorClock()>& before_clock);

  // The deadlocks of the graph. `exclusive(a, b)`: whether held address sets a and b share a
  // lock that excludes (LocksetTable::ExclusiveAddressSets, HeldLocks::Exclusive). Findings'
  // events are the requests' and acquisitions' numbers as given.
  std::vector<Finding> FindDeadlocks(const std::function<bool(uint32_t, uint32_t)>& exclusive,
                                     DeadlockSearchStats* stats = nullptr) const;

  // One nested acquisition: `thread` holds the lock it took at `held_acquire` and requests
  // another at `request`.
  struct Instance {
    ThreadId thread = 0;
    EventIndex held_acquire = 0;
    EventIndex request = 0;
    SiteId held_site = 0;
    SiteId request_site = 0;
    bool held_read = false;
    bool request_read = false;
    uint32_t request_local = 0;
    uint32_t held_locks = 0;
    PorClock before_clock;  // of the thread's event before the request
  };
  size_t LockCount() const { return lock_address_.size(); }
  size_t InstanceCount() const { return instances_.size(); }
  const Instance& InstanceAt(size_t i) const { return instances_[i]; }
  // Edges as (from lock, to lock) vertex pairs, indexed by edge id.
  const std::vector<std::pair<uint32_t, uint32_t>>& Edges() const { return edges_; }
  const std::vector<size_t>& InstancesOf(uint32_t edge) const { return edge_instances_[edge]; }
  // The edge from -> to, if any.
  const uint32_t* Find(uint32_t from, uint32_t to) const;

 private:
  // What makes two nestings of one edge interchangeable for the search.
  struct InstanceKey {
    uint32_t edge = 0;
    ThreadId thread = 0;
    SiteId held_site = 0;
    SiteId request_site = 0;
    uint32_t held_locks = 0;
    bool operator==(const InstanceKey&) const = default;
  };
  struct InstanceKeyHash {
    size_t operator()(const InstanceKey& k) const;
  };
  struct PairHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& p) const;
  };
  struct Slots {  // the first and last occurrence of a key
    size_t first = 0;
    size_t last = 0;
  };
  uint32_t Vertex(uint64_t lock);
  uint32_t EdgeId(uint64_t from_lock, uint64_t to_lock);

  std::unordered_map<uint64_t, uint32_t> vertex_of_;
  std::vector<uint64_t> lock_address_;
  std::unordered_map<std::pair<uint64_t, uint64_t>, uint32_t, PairHash> edge_id_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
  std::vector<std::vector<size_t>> edge_instances_;
  std::vector<Instance> instances_;
  std::unordered_map<InstanceKey, Slots, InstanceKeyHash> seen_;
};

// The deadlocks of an indexed trace.
std::vector<Finding> PredictDeadlocks(const Trace& trace, const PorIndex& por,
                                      const LocksetTable& locksets,
                                      DeadlockSearchStats* stats = nullptr);

}  // namespace pecan
