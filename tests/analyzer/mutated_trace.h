// Mutated: a random trace made harder for the streaming searches, which must find exactly what
// Analyze finds on any trace, feasible or not.
#pragma once

#include <random>
#include <vector>

#include "trace_format/trace.h"

namespace pecan::test {

// `base` with its sites folded onto a few, some accesses narrowed to part of their variable,
// and FREE/ALLOC events of variables' bytes inserted by random threads. The result need not be
// a feasible run: both searches must agree on any trace.
inline Trace Mutated(const Trace& base, uint64_t seed) {
  std::mt19937_64 random(seed * 7919 + 1);
  const uint32_t sites = 2 + random() % 6;
  Trace out;
  out.meta = base.meta;
  out.threads = base.threads;
  out.sites = base.sites;
  out.names = base.names;
  std::vector<EventKind> last_kind(base.threads.size(), EventKind::kUnspecified);
  for (EventIndex i = 0; i < base.size_events(); ++i) {
    Event e = base.event(i);
    const bool in_wait = e.kind == EventKind::kWait || last_kind[e.thread] == EventKind::kWait;
    last_kind[e.thread] = e.kind;
    if (IsAccess(e.kind)) {
      e.site = e.site % sites;
      if (random() % 8 == 0 && e.size >= 2) {
        e.size /= 2;
        if (random() % 2) e.addr += e.size;
      } else if (random() % 16 == 0) {  // a block copy over this variable and its neighbours
        e.addr -= e.addr % 8 + 8 * (random() % 2);
        e.size = static_cast<uint32_t>(9 + random() % 32);
      }
      if (!in_wait && random() % 12 == 0) {
        const ThreadId t = static_cast<ThreadId>(random() % base.threads.size());
        const EventKind kind = random() % 3 == 0 ? EventKind::kAlloc : EventKind::kFree;
        out.push_back(Event{t, kind, 0, static_cast<uint32_t>(8 * (1 + random() % 2)),
                            e.addr - e.addr % 8, static_cast<SiteId>(sites + random() % 2)});
      }
    }
    out.push_back(e);
  }
  return out;
}

}  // namespace pecan::test
