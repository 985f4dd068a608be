// The section monitors' view of a thread's events. A monitor watches short stretches of a
// thread's execution ("sections") that start at an access and end at the thread's next event:
// noise_sections.h (AtomRace detection and noise injection, `pecan fuzz --strategy noise`) and
// heal_sections.h (healing known races with extra locks, `pecan heal`). Threads whose
// kGateSections gate is open call these before each access and before each other event takes
// effect; they never call them from the runtime's own code (its scopes close every gate).
#pragma once

#include <cstdint>

#include "trace_format/event_kind.h"

namespace pecan::rt {

struct ThreadState;

// Starts the monitors the environment asks for (once, at start-up, before any thread records);
// `recording`: the process records its run (the noise monitor needs a recording to report).
void StartSectionMonitors(bool recording);

// True when some monitor is on (decided once at start-up): threads then open kGateSections.
bool SectionsActive();

// Before a plain access of `size` bytes at `addr` by the instruction at `pc`.
void SectionsOnAccess(ThreadState& t, EventKind kind, uint64_t addr, uint64_t size, uint64_t pc);
// Before any other event of the thread (synchronization, atomics, allocation, regions, the
// thread's end), and before a call that may block: the thread's open section ends here.
// `target` is the event's object (the key of a region).
void SectionsOnEvent(ThreadState& t, EventKind kind, uint64_t target);
// Entry to (or exit from) the instrumented function whose code holds `pc`.
void SectionsOnFunction(ThreadState& t, bool entry, uint64_t pc);
// The thread is ending: its monitor state is released.
void SectionsOnThreadEnd(ThreadState& t);

}  // namespace pecan::rt
