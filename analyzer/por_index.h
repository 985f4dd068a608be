// PorIndex answers "is e_i ordered before e_j by the partial order relation (POR)" in constant
// time, from vector clocks kept only at thread-communication (TC) events (PECAN section 5.1).
// POR = program order, fork -> child's first event, child's last event -> join, notify -> the
// wait it woke, barrier generations, semaphore post -> wait, release-store -> acquire-load that
// read it, and user happens-before annotations. Lock release -> acquire is NOT part of it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

class PorIndex {
 public:
  explicit PorIndex(const Trace& trace);
  ~PorIndex();
  PorIndex(PorIndex&&) noexcept;

  // True when a != b and a ->POR b (a necessarily precedes b in the trace).
  bool Ordered(EventIndex a, EventIndex b) const;
  // Neither a -> b nor b -> a.
  bool Concurrent(EventIndex a, EventIndex b) const { return !Ordered(a, b) && !Ordered(b, a); }

  // Position of event i within its thread (0-based) and the events of each thread in order.
  uint64_t LocalIndex(EventIndex i) const;
  const std::vector<EventIndex>& ThreadEvents(ThreadId t) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
