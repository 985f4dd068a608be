// Properties every recorded trace must have, checked on a pecan::Trace. Each check returns the
// violations it found (empty = fine), worded so a failing test says what went wrong and where.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace_format/trace.h"

namespace pecan::rt_test {

using Violations = std::vector<std::string>;

// THREAD_BEGIN first and THREAD_END last in each thread; FORK before the child's first event,
// with parent and ordinal matching the thread table; the child's THREAD_END before its JOIN.
Violations CheckThreadStructure(const Trace& trace);

// Per lock address: acquires and releases pair up, a write-held lock is held by one thread
// only, a read-held one by readers only, and nobody releases what it does not hold.
Violations CheckLockDiscipline(const Trace& trace);

// FUNC_ENTRY/FUNC_EXIT never go below depth 0, and are balanced at each THREAD_END.
Violations CheckFunctionNesting(const Trace& trace);

// Each WAIT that was not a timeout follows a NOTIFY_ALL on its condition variable, or a NOTIFY
// no other WAIT was matched to (stamped before its signal, it may be older than the wait), and
// is directly followed (in its thread) by LOCK.
Violations CheckWaitNotify(const Trace& trace);

// At every point, SEM_WAITs on a semaphore never outnumber its SEM_POSTs (initial value 0).
Violations CheckSemaphores(const Trace& trace);

// Barrier arrivals form generations of `size`; every DEPART follows all arrivals of its
// thread's generation.
Violations CheckBarriers(const Trace& trace);

// A recorded ALLOC never overlaps a block that is still allocated in trace order.
Violations CheckAllocations(const Trace& trace);

// Everything above.
Violations CheckAll(const Trace& trace);

// Counting helpers.
size_t CountEvents(const Trace& trace, EventKind kind, uint64_t addr);
size_t CountEventsInRange(const Trace& trace, EventKind kind, uint64_t begin, uint64_t end);
std::vector<size_t> EventsOf(const Trace& trace, EventKind kind, uint64_t addr);

// Joins violations into one message for a failing assertion.
std::string Describe(const Violations& violations);

}  // namespace pecan::rt_test
