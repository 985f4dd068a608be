// RandomTraceGenerator: small random traces that are themselves feasible executions — nested
// locks, fork/join, condition waits as the recorder writes them, optional atomics — for
// property tests against the brute-force oracle. Seeded: the same seed gives the same trace.
//
// What a generated trace guarantees (it is produced by simulating the threads):
//   - locks are properly nested per thread and never held by two threads at once in trace
//     order (read-mode holders share);
//   - FORK(child) precedes all of the child's events; JOIN(child) follows all of them; every
//     thread releases its locks and joins its unjoined children before it ends;
//   - a condition wait is UNLOCK(m), WAIT(cv), LOCK(m) with m the cv's mutex (the innermost lock
//     held); NOTIFY/NOTIFY_ALL happen while holding the cv's mutex; at most one thread waits on a
//     cv at a time, so the notify that woke a WAIT is the only notify on that cv between the
//     waiter's UNLOCK and its WAIT (the pairing rule of oracle_model.h); a wait nobody notified
//     ends with the timed-out flag;
//   - atomics (option): release stores and acquire loads (and relaxed ones) on one flag
//     variable that plain accesses never touch;
//   - each event has a site of its own (site id = event index), variables/locks are named.
#pragma once

#include <cstdint>

#include "trace_format/trace.h"

namespace pecan::test {

struct RandomTraceOptions {
  uint32_t min_threads = 2;  // including the main thread T0
  uint32_t max_threads = 4;
  uint32_t min_events = 8;
  uint32_t max_events = 16;
  uint32_t max_variables = 3;  // plain shared variables: 2..max_variables per trace
  uint32_t max_locks = 2;      // 1..max_locks per trace
  uint32_t max_lock_depth = 2;
  bool condition_waits = true;
  bool atomics = false;
  bool read_locks = false;        // some acquisitions in read mode (rwlock readers)
  bool thread_begin_end = false;  // THREAD_BEGIN / THREAD_END events
};

class RandomTraceGenerator {
 public:
  explicit RandomTraceGenerator(RandomTraceOptions options = {});
  // Throws std::runtime_error if no trace within the options' bounds could be generated.
  Trace Generate(uint64_t seed) const;

 private:
  RandomTraceOptions options_;
};

}  // namespace pecan::test
