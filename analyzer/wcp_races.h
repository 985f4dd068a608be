// The races a trace predicts soundly without reordering critical sections by hand: weak causal
// precedence (WCP; Kini, Mathur, Viswanathan, PLDI 2017), in one linear pass. hunt replays the
// predictions WCP also finds first.
#pragma once

#include <vector>

#include "analyzer/por_index.h"
#include "analyzer/race_shadow.h"
#include "trace_format/trace.h"

namespace pecan {

// One race unordered by WCP (race_shadow.h says which pairs are reported, deduplicated per pair
// of sites, in order of `second`).
using WcpRace = ClockRace;

// WCP orders less than happens-before (HB): a lock release is ordered before a later
// acquisition's critical section only where they conflict —
//   (a) the release of a critical section before an access in a later critical section on the
//       same lock that conflicts with one of its accesses (same 8-byte granule, one a write);
//   (b) the release of a critical section before the release of a later one on the same lock
//       when the earlier one's acquisition is WCP-ordered before the later release;
//   (c) closed under composition with HB on both sides.
// So every HB race is a WCP race, and WCP also finds races hidden only by the observed order of
// critical sections that share nothing (DrFinder's Figure 2). The first WCP race of a trace is a
// real race or a real deadlock of some correct reordering (the paper's soundness theorem); the
// ones after it are very likely but not proved.
//
// The non-lock edges of PorIndex (fork, join, notify -> wait, barriers, semaphores, release
// -> acquire atomics, annotations) order strongly: every correct reordering keeps them. A lock
// ever held in read mode (an rwlock) is ordered as HB orders it (release -> later acquisitions),
// strongly: more order can only hide races, never invent one. Rule (a) compares 8-byte granules,
// a coarser conflict than bytes, for the same reason.
//
// Time linear in the events (times the thread count at synchronization); memory per lock holds
// the release clocks of critical sections some thread still has to compare with (rule b).
std::vector<WcpRace> FindWcpRaces(const Trace& trace);
// The same with the trace's PorIndex already built (hunt has one for its clips).
std::vector<WcpRace> FindWcpRaces(const Trace& trace, const PorIndex& por);

}  // namespace pecan
