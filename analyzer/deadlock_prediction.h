// Lock-order deadlock prediction (pattern `deadlock`): cycles of the trace's lock-order graph
// whose nested acquisitions some feasible reordering can bring to a standstill together.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/finding.h"
#include "analyzer/lockset_table.h"
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
struct DeadlockSearchStats {
  uint64_t edges = 0;   // distinct edge instances kept
  uint64_t cycles = 0;  // lock cycles examined
};

inline constexpr size_t kMaxCycleLocks = 8;
// Bounds on the search, which is exponential in the worst case: past them, the remaining
// cycles are not examined (the stats say how many were).
inline constexpr uint64_t kMaxLockCycles = 20'000;
inline constexpr uint64_t kMaxAssignmentSteps = 2'000'000;

std::vector<Finding> PredictDeadlocks(const Trace& trace, const PorIndex& por,
                                      const LocksetTable& locksets,
                                      DeadlockSearchStats* stats = nullptr);

}  // namespace pecan
