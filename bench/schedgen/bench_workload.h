// A synthetic multi-threaded run for the schedule-generation benchmark: workers that take locks
// around shared data, touch private data, and race on a few variables, built in memory.
#pragma once

#include <cstdint>

#include "trace_format/trace.h"

namespace pecan::bench {

// Shape: T0 forks kWorkers workers, which interleave randomly (seeded) event by event until the
// trace holds about `events` events; then each finishes its critical section, and T0 joins them.
// A worker step is a critical section on one of kLocks locks (2..6 accesses to that lock's
// variables, some to the shared `mixed` variables), a private access, or an unprotected access
// to a `mixed` variable (which other workers also access under a lock: races and atomicity
// violations on them are real).
inline constexpr uint32_t kWorkers = 4;
inline constexpr uint32_t kLocks = 4;
inline constexpr uint32_t kMixedVariables = 4;

Trace MakeWorkload(uint64_t events, uint64_t seed);

// Address helpers, so the benchmark can find the shapes it times.
bool IsMixedVariable(uint64_t address);

}  // namespace pecan::bench
