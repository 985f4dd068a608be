// Accesses the analysis has no use for, mixed into a trace for tests of readers that leave them
// out (analyzer/analysis_trace.h, analyzer/streaming_races.h).
#pragma once

#include <cstdint>

#include "trace_format/trace.h"

namespace pecan::test {

// `base` with accesses the analysis has no use for inserted before its events: each thread's
// private bytes (byte ranges of 1-8 bytes), reads of a table nobody writes, and a heap block
// that one thread allocates, uses and frees and another thread later allocates again at the
// same address (a new allocation version: a different variable). Never inside a condition
// wait's UNLOCK, WAIT, LOCK, which the recorder writes back to back.
Trace WithUnusedAccesses(const Trace& base, uint64_t seed);

}  // namespace pecan::test
