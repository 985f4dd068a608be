// AtomRace (Letko, Vojnar, Křena, PADTAD 2008) in the recording runtime: races found as
// violations of primitive atomic sections, atomicity violations of the user's regions, and
// noise that stretches the sections (`pecan fuzz --strategy noise`; docs/runtime-env.md,
// PECAN_NOISE*).
//
// Each plain access opens a primitive atomic section of its thread that lasts until the thread's
// next access or other event (Figure 2's beforeAccess .. afterAccess: nothing synchronizes in
// between, since every synchronization is an event). An access by another thread to an
// overlapping location while the section is open, one of the two a write, is a race that
// happened: both accesses were enabled at once. Within a `pecan_region_begin/end` region (or a
// user atomic section of PECAN_NOISE_ATOMIC: a function from entry to exit, or a range of lines
// from the thread's first access inside to its first access, call or return outside), an
// access by another thread between two of the region's accesses to one location that makes
// the three unserializable (R-W-R, W-W-R, W-R-W, R-W-W) is an atomicity violation (Figure 3's
// SuspectAccess). Noise — a sleep of PECAN_NOISE_STRENGTH microseconds, then a yield — is
// injected inside the section, at accesses chosen by the heuristic: any (random), those of a few
// chosen variables (variable) or a few chosen instructions (location).
//
// Every distinct finding is appended at once to PECAN_NOISE_REPORT as one line, so a run that
// crashes right after keeps it:
//   race ADDR SIZE SERIAL_A KIND_A PC_A SERIAL_B KIND_B PC_B       (A's section was open)
//   atomicity ADDR SERIAL_T KIND_1 PC_1 SERIAL_U KIND_2 PC_2 KIND_3 PC_3
// with kinds R or W and addresses and pcs in hex (pcs are the process's, the trace's module
// table maps them to sites).
#pragma once

#include <cstdint>

#include "trace_format/event_kind.h"

namespace pecan::rt {

struct ThreadState;

// Reads PECAN_NOISE_REPORT and the noise settings; true when the monitor is on (record mode
// only: the caller decides). Resolves PECAN_NOISE_FOCUS's instructions in the loaded modules.
bool StartNoiseMonitor();

void NoiseOnAccess(ThreadState& t, EventKind kind, uint64_t addr, uint64_t size, uint64_t pc);
void NoiseOnEvent(ThreadState& t, EventKind kind, uint64_t target);
void NoiseOnFunction(ThreadState& t, bool entry, uint64_t pc);
void NoiseOnThreadEnd(ThreadState& t);

}  // namespace pecan::rt
