// RegionTable assigns every event to the atomic region (PECAN's unit of work) it belongs to:
// outermost critical sections, annotated regions and, optionally, function invocations.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "analyzer/analysis.h"
#include "trace_format/trace.h"

namespace pecan {

using RegionId = uint32_t;
// Events outside every region: each is a unit of its own.
inline constexpr RegionId kNoRegion = ~RegionId{0};

// The rules (per thread):
// - A region is open while the thread holds a lock (outermost critical section: LOCK at depth 0
//   .. its matching UNLOCK), is inside REGION_BEGIN..REGION_END, or (RegionMode::kFunctions)
//   is inside a function invocation that counts as a region. Nested and overlapping scopes
//   merge into the outermost: one region lasts from the event that opens the first scope to the
//   event that closes the last. The opening and closing events belong to the region.
// - Thread communication ends a region: FORK, JOIN, THREAD_BEGIN/END, WAIT, NOTIFY(_ALL),
//   BARRIER_*, SEM_*, HB_*. Such an event belongs to no region; if scopes are still open after
//   it, a new region starts with the thread's next event.
// - Function regions: a thread's root invocation is the depth-0 invocation (FUNC_ENTRY..
//   FUNC_EXIT) holding the most of the thread's events, if it holds more than half of them (the
//   start routine, or main). Every invocation directly below the root, and every other depth-0
//   invocation, is a region. A thread whose start routine was not instrumented thus has no root,
//   and each of its top-level calls is a region.
// Per thread, the local index range [begin, end) of its root invocation, if it has one.
struct RootInvocation {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool exists = false;
};

// The rules, followed one event at a time in trace order: RegionTable's pass, and the streaming
// search's (RegionMode::kLocks; function regions need each thread's root, found by a pass of
// their own).
class RegionScopes {
 public:
  RegionScopes(RegionMode mode, size_t threads);  // no roots
  RegionScopes(RegionMode mode, std::vector<RootInvocation> roots);
  ~RegionScopes();
  RegionScopes(RegionScopes&&) noexcept;

  // The region of thread t's next event, of `kind` on `addr` (kNoRegion: none). A region it
  // opens gets the next id: regions are numbered in the order they open. Inline for an access
  // under RegionMode::kLocks, which opens and closes no scope: most events are accesses.
  RegionId Visit(ThreadId t, EventKind kind, uint64_t addr) {
    if (IsAccess(kind) && t < access_region_.size() && access_region_[t] != kAccessOpens)
      return access_region_[t];
    return VisitScopes(t, kind, addr);
  }
  RegionId Opened() const;  // how many regions opened so far

 private:
  RegionId VisitScopes(ThreadId t, EventKind kind, uint64_t addr);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  // Per thread, under RegionMode::kLocks: the region its next access belongs to, or
  // kAccessOpens when scopes are open but no region (the access opens one; VisitScopes decides).
  // Empty under RegionMode::kFunctions, where every event counts towards the root invocation.
  static constexpr RegionId kAccessOpens = kNoRegion - 1;
  std::vector<RegionId> access_region_;
};

class RegionTable {
 public:
  RegionTable(const Trace& trace, RegionMode mode);
  ~RegionTable();
  RegionTable(RegionTable&&) noexcept;

  RegionId Of(EventIndex i) const { return of_[i]; }
  size_t Count() const;
  EventIndex First(RegionId r) const;  // the event that opened it
  EventIndex Last(RegionId r) const;   // the last event in it

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  const RegionId* of_ = nullptr;  // view into impl_ for the inline Of()
};

}  // namespace pecan
