// The data races a trace *observed*: a classic happens-before detector (vector clocks, epochs per
// access), unlike the prediction model, for strategies that make hidden races show (DrFinder).
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/race_shadow.h"
#include "trace_format/trace.h"

namespace pecan {

// One observed race (race_shadow.h): two accesses unordered by happens-before.
using HappensBeforeRace = ClockRace;

// Happens-before (HB) = the analyzer's partial order relation (PorIndex: program order, fork ->
// child, child -> join, notify -> the wait it woke, barrier generations, semaphore post -> wait,
// release-store -> acquire-load that read it, user annotations; the same edges, taken from
// PorIndex::SyncEdges) plus lock release -> every later acquisition of the same lock. For rwlocks
// a write-mode release (UNLOCK) orders every later acquisition, a read-mode release (READ_UNLOCK)
// only later write-mode ones (LOCK): readers do not order readers. A condition wait is recorded
// as UNLOCK, WAIT, LOCK and gets its lock edges from those.
//
// What is reported: every access is checked against the latest earlier access of each other
// thread that touched the same bytes (the latest write, and the latest read when the access
// writes); an earlier access of that thread on the same bytes is only reported when the latest
// one does not cover them. So every (location, pair of threads) that races yields a race, but a
// thread's earlier racing accesses hidden behind its later one may not. A write ordered after
// an access removes that access from the bytes it covers (FastTrack): what raced with the
// removed one and not with the write is not reported. ALLOC and FREE forget their block: a
// reused address is a new location.
//
// Results are deduplicated per unordered pair of sites, in order of `second`. Runs in one pass
// after PorIndex, in time linear in the events (times the thread count at synchronization).
std::vector<HappensBeforeRace> FindHappensBeforeRaces(const Trace& trace);

}  // namespace pecan
