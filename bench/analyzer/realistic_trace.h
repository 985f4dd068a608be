// A realistic multi-threaded trace, generated in memory by simulating worker threads of a
// server-like program: mostly thread-local work, read-mostly shared tables, lock-protected
// counters and tables, a few hot racy counters, a producer/consumer queue with condition waits,
// atomics, heap blocks that are freed and reused, function events, short-lived helper threads,
// and two bugs beyond the racy counters: a rare path that writes the table without its lock,
// and a pair of statistics fields written under one lock and read under another.
#pragma once

#include <cstdint>

#include "trace_format/trace.h"

namespace pecan::bench {

struct RealisticTraceOptions {
  uint64_t events = 1'000'000;  // approximate: threads finish their current step at the end
  uint32_t workers = 8;
  uint64_t seed = 1;
};

// The recorded order is a feasible execution: lock exclusion, fork before the child, join after
// it, notify before the wait it wakes (waits nobody woke are marked timed out).
Trace GenerateRealisticTrace(const RealisticTraceOptions& options);

}  // namespace pecan::bench
