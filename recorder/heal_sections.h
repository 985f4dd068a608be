// AtomRace's healing (Letko, Vojnar, Křena, PADTAD 2008, Section 2) in the runtime: accesses to
// a known racy variable are serialized through extra locks (`pecan heal`, PECAN_MODE=heal).
//
// PECAN_HEAL names what to heal, one item a line (offsets in hex, sizes in decimal):
//   site MODULE_PATH OFFSET          the instruction at MODULE_PATH + OFFSET
//   variable MODULE_PATH OFFSET SIZE the global of SIZE bytes at MODULE_PATH + OFFSET
// An access is healed when its instruction is a listed site, its location overlaps a listed
// variable, or its location was accessed by a listed site before in this run (so healing by
// site covers every access to the same heap or global location). A healed access takes the
// healing lock of its location's stripe and holds it over the read-modify-write: a write right
// after the thread's read of the same stripe keeps it; a synchronization event, a blocking call,
// the thread's end, a non-healed access after the section wrote, or kMaxOtherAccesses other
// accesses release it. A thread holds at most one healing lock, so they cannot deadlock among
// themselves; a thread that waits for one longer than kGiveUpNs goes on without it (the holder
// may be blocked where pecan does not see). At exit the counts go to PECAN_HEAL_STATS:
//   engaged N          accesses that took or kept a healing lock
//   gave_up N          waits that went on without the lock
//   site MODULE_PATH OFFSET N   per listed site (in the order of PECAN_HEAL)
//   other N            engaged at instructions not listed (learned locations, variables)
#pragma once

#include <cstdint>

#include "trace_format/event_kind.h"

namespace pecan::rt {

struct ThreadState;

// Reads PECAN_HEAL (and PECAN_HEAL_STATS) and resolves the listed items in the loaded modules;
// true when the monitor is on. Heal mode only: the caller decides.
bool StartHealMonitor();

void HealOnAccess(ThreadState& t, EventKind kind, uint64_t addr, uint64_t size, uint64_t pc);
void HealOnEvent(ThreadState& t, EventKind kind, uint64_t target);
void HealOnThreadEnd(ThreadState& t);

}  // namespace pecan::rt
