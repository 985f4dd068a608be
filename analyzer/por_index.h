// PorIndex answers "is e_i ordered before e_j by the partial order relation (POR)" in constant
// time, from vector clocks kept only at thread-communication (TC) events (PECAN section 5.1).
// POR = program order, fork -> child's first event, child's last event -> join, notify -> the
// wait it woke, barrier generations, semaphore post -> wait, release-store -> acquire-load that
// read it, and user happens-before annotations. Lock release -> acquire is NOT part of it.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

class PorIndex {
 public:
  // Keeps a pointer to `trace`, which must outlive the index.
  explicit PorIndex(const Trace& trace);
  ~PorIndex();
  PorIndex(PorIndex&&) noexcept;

  // True when a != b and a ->POR b (a necessarily precedes b in the trace).
  bool Ordered(EventIndex a, EventIndex b) const {
    if (a >= b) return false;
    const ThreadId ta = thread_[a];
    const ThreadId tb = thread_[b];
    if (ta == tb) return true;
    return clocks_[tb][static_cast<size_t>(version_[b]) * thread_count_ + ta] > local_[a];
  }
  // The clock in force at event i: entry u is one more than the local index of the last event of
  // thread u ordered before i (PorClocks::CurrentClock's form).
  std::vector<uint32_t> ClockAt(EventIndex i) const {
    const uint32_t* row = clocks_[thread_[i]].data() + static_cast<size_t>(version_[i]) * thread_count_;
    return std::vector<uint32_t>(row, row + thread_count_);
  }
  // Neither a -> b nor b -> a.
  bool Concurrent(EventIndex a, EventIndex b) const { return !Ordered(a, b) && !Ordered(b, a); }

  // Position of event i within its thread (0-based) and the events of each thread in order.
  uint64_t LocalIndex(EventIndex i) const { return local_[i]; }
  const std::vector<EventIndex>& ThreadEvents(ThreadId t) const;

  uint32_t ThreadCount() const;
  // The thread's TC interval at i: events of one thread with the same interval have the same
  // inter-thread predecessors (the clock version in force; it changes only where an edge arrives).
  uint32_t TcInterval(EventIndex i) const { return version_[i]; }
  // The inter-thread POR edges (source, destination) that added ordering, in destination order.
  // Edges already implied by earlier ones are left out; with program order they generate POR.
  const std::vector<std::pair<EventIndex, EventIndex>>& SyncEdges() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  // Views into impl_ for the inline queries (stable: impl_ is never reallocated).
  const ThreadId* thread_ = nullptr;
  const uint32_t* local_ = nullptr;
  const uint32_t* version_ = nullptr;
  const std::vector<uint32_t>* clocks_ = nullptr;
  uint32_t thread_count_ = 0;
};

}  // namespace pecan
