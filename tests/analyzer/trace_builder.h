// Builds small in-memory traces for analyzer tests, one call per event, so a test reads like
// the trace it checks. Every call returns the event's index.
#pragma once

#include <string>

#include "trace_format/trace.h"

namespace pecan::testing {

class TraceBuilder {
 public:
  EventIndex Read(ThreadId t, uint64_t addr, SiteId site = 0) {
    return Add(t, EventKind::kRead, addr, 8, 0, site);
  }
  EventIndex Write(ThreadId t, uint64_t addr, SiteId site = 0) {
    return Add(t, EventKind::kWrite, addr, 8, 0, site);
  }
  EventIndex Lock(ThreadId t, uint64_t lock, SiteId site = 0) {
    return Add(t, EventKind::kLock, lock, 0, 0, site);
  }
  EventIndex Unlock(ThreadId t, uint64_t lock, SiteId site = 0) {
    return Add(t, EventKind::kUnlock, lock, 0, 0, site);
  }
  EventIndex ReadLock(ThreadId t, uint64_t lock) {
    return Add(t, EventKind::kReadLock, lock, 0, 0, 0);
  }
  EventIndex ReadUnlock(ThreadId t, uint64_t lock) {
    return Add(t, EventKind::kReadUnlock, lock, 0, 0, 0);
  }
  EventIndex Fork(ThreadId t, ThreadId child) { return Add(t, EventKind::kFork, child, 0, 0, 0); }
  EventIndex Join(ThreadId t, ThreadId child) { return Add(t, EventKind::kJoin, child, 0, 0, 0); }
  EventIndex Begin(ThreadId t) { return Add(t, EventKind::kThreadBegin, 0, 0, 0, 0); }
  EventIndex End(ThreadId t) { return Add(t, EventKind::kThreadEnd, 0, 0, 0, 0); }
  EventIndex Wait(ThreadId t, uint64_t cv, bool timed_out = false) {
    return Add(t, EventKind::kWait, cv, 0, timed_out ? kWaitTimedOutFlag : 0, 0);
  }
  EventIndex Notify(ThreadId t, uint64_t cv) { return Add(t, EventKind::kNotify, cv, 0, 0, 0); }
  EventIndex NotifyAll(ThreadId t, uint64_t cv) {
    return Add(t, EventKind::kNotifyAll, cv, 0, 0, 0);
  }
  EventIndex Arrive(ThreadId t, uint64_t barrier, uint32_t count) {
    return Add(t, EventKind::kBarrierArrive, barrier, count, 0, 0);
  }
  EventIndex Depart(ThreadId t, uint64_t barrier, uint32_t count) {
    return Add(t, EventKind::kBarrierDepart, barrier, count, 0, 0);
  }
  EventIndex Post(ThreadId t, uint64_t sem) { return Add(t, EventKind::kSemPost, sem, 0, 0, 0); }
  EventIndex SemWait(ThreadId t, uint64_t sem) { return Add(t, EventKind::kSemWait, sem, 0, 0, 0); }
  EventIndex Free(ThreadId t, uint64_t base, uint32_t size) {
    return Add(t, EventKind::kFree, base, size, 0, 0);
  }
  EventIndex AtomicLoad(ThreadId t, uint64_t addr, MemoryOrder mo, SiteId site = 0) {
    return Add(t, EventKind::kAtomicLoad, addr, 8, static_cast<uint8_t>(mo), site);
  }
  EventIndex AtomicStore(ThreadId t, uint64_t addr, MemoryOrder mo, SiteId site = 0) {
    return Add(t, EventKind::kAtomicStore, addr, 8, static_cast<uint8_t>(mo), site);
  }
  EventIndex AtomicRmw(ThreadId t, uint64_t addr, MemoryOrder mo, SiteId site = 0) {
    return Add(t, EventKind::kAtomicRmw, addr, 8, static_cast<uint8_t>(mo), site);
  }
  EventIndex Fence(ThreadId t, MemoryOrder mo) {
    return Add(t, EventKind::kFence, 0, 0, static_cast<uint8_t>(mo), 0);
  }
  EventIndex HbRelease(ThreadId t, uint64_t key) {
    return Add(t, EventKind::kHbRelease, key, 0, 0, 0);
  }
  EventIndex HbAcquire(ThreadId t, uint64_t key) {
    return Add(t, EventKind::kHbAcquire, key, 0, 0, 0);
  }
  EventIndex RegionBegin(ThreadId t) { return Add(t, EventKind::kRegionBegin, 0, 0, 0, 0); }
  EventIndex RegionEnd(ThreadId t) { return Add(t, EventKind::kRegionEnd, 0, 0, 0, 0); }
  EventIndex FuncEntry(ThreadId t, SiteId site) {
    return Add(t, EventKind::kFuncEntry, 0, 0, 0, site);
  }
  EventIndex FuncExit(ThreadId t) { return Add(t, EventKind::kFuncExit, 0, 0, 0, 0); }

  EventIndex Add(ThreadId t, EventKind kind, uint64_t addr, uint32_t size, uint8_t flags,
                 SiteId site) {
    while (trace_.threads.size() <= t) {
      ThreadInfo info;
      info.name = "T" + std::to_string(trace_.threads.size());
      trace_.threads.push_back(info);
    }
    while (trace_.sites.size() <= site) {
      trace_.sites.push_back(SiteInfo{kNoModule, trace_.sites.size()});
    }
    trace_.push_back(Event{t, kind, flags, size, addr, site});
    return trace_.size_events() - 1;
  }

  const Trace& trace() const { return trace_; }
  Trace& mutable_trace() { return trace_; }

 private:
  Trace trace_;
};

}  // namespace pecan::testing
