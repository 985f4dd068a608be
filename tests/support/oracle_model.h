// PECAN's hybrid constraint model computed the slow, obvious way for small traces: per-thread
// event order, the cross-thread POR edges, the locks each thread holds, and atomic regions.
//
// POR (direct cross-thread edges; program order is implicit):
//   FORK(child)                -> the child's first event
//   the child's last event     -> JOIN(child)
//   NOTIFY/NOTIFY_ALL on cv    -> the WAIT it woke: for a WAIT without the timed-out flag, the
//                                 last notify on that cv by another thread strictly between the
//                                 waiter's preceding event (its UNLOCK) and the WAIT, in trace
//                                 order; timed-out waits and waits with no such notify get none
//   release store/RMW          -> acquire load/RMW that read it: the last write (store/RMW/plain
//                                 write) to the same address before the load in trace order, if
//                                 it is an atomic with release/acq_rel/seq_cst order and the
//                                 load has acquire/acq_rel/seq_cst order, by another thread
//   HB_RELEASE(key)            -> every later HB_ACQUIRE(key) by another thread
//   every BARRIER_ARRIVE of a generation -> every BARRIER_DEPART of it (arrivals on one barrier
//                                 taken `size` at a time in trace order; a depart belongs to the
//                                 generation of its thread's preceding arrive on that barrier)
// Semaphores are not modelled (the constructor throws std::invalid_argument).
//
// Locks: LOCK/READ_LOCK push, UNLOCK/READ_UNLOCK pop the thread's most recent hold of that lock.
// A LOCK is blocked while another thread holds the lock in any mode, a READ_LOCK while another
// thread holds it in write mode.
//
// Atomic regions (units of work), consistent with the analyzer's RegionMode::kLocks:
//   - a thread is "inside" while it holds at least one lock or is inside an annotated region
//     (REGION_BEGIN..REGION_END); the outermost acquisition opens a region, the release that
//     brings the depth back to 0 closes it (both belong to it), nested sections belong to the
//     outermost one;
//   - FORK, JOIN, WAIT, NOTIFY and NOTIFY_ALL end a region: such an event is a unit of its own
//     and the thread's next inside event opens a fresh region (so a condition wait
//     UNLOCK(m) WAIT(cv) LOCK(m) splits the critical section in two);
//   - every event outside any region is a single-event unit of its own.
#pragma once

#include <cstdint>
#include <vector>

#include "trace_format/trace.h"

namespace pecan::test {

struct LockHold {
  uint64_t lock = 0;
  bool read_mode = false;
};

class OracleModel {
 public:
  explicit OracleModel(const Trace& trace);

  const Trace& trace() const { return trace_; }
  size_t event_count() const { return trace_.size_events(); }
  size_t thread_count() const { return thread_events_.size(); }

  const std::vector<EventIndex>& ThreadEvents(ThreadId t) const { return thread_events_[t]; }
  uint32_t LocalIndex(EventIndex e) const { return local_[e]; }
  // Direct POR predecessors of e in other threads.
  const std::vector<EventIndex>& CrossPredecessors(EventIndex e) const { return cross_preds_[e]; }
  // Locks thread t holds after executing its first `executed` events.
  const std::vector<LockHold>& HeldAfter(ThreadId t, uint32_t executed) const {
    return held_[t][executed];
  }
  // Locks held by e's thread while e runs (for an acquire: before it; for a release: before it).
  const std::vector<LockHold>& HeldAt(EventIndex e) const {
    return held_[trace_.thread[e]][local_[e]];
  }
  // Unit of work of each event; IsRegion says whether a unit is a real atomic region (opened by
  // a lock or annotation) rather than a single event outside any region.
  uint32_t UnitOf(EventIndex e) const { return unit_[e]; }
  bool IsRegion(uint32_t unit) const { return unit_is_region_[unit]; }

  // Is event e (the next event of its thread under `positions`) allowed to run now: every
  // cross-thread POR predecessor already executed and its lock free? `positions[t]` = number of
  // events thread t has executed.
  bool Enabled(const std::vector<uint32_t>& positions, EventIndex e) const;

 private:
  void ComputeThreads();
  void ComputePorEdges();
  void ComputeLocks();
  void ComputeUnits();

  const Trace& trace_;
  std::vector<std::vector<EventIndex>> thread_events_;
  std::vector<uint32_t> local_;
  std::vector<std::vector<EventIndex>> cross_preds_;
  std::vector<std::vector<std::vector<LockHold>>> held_;
  std::vector<uint32_t> unit_;
  std::vector<bool> unit_is_region_;
};

}  // namespace pecan::test
