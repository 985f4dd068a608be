// WithUnusedAccesses: private bytes, a read-only table and a reused heap block, inserted at
// random before a trace's events.
#include "tests/support/unused_accesses.h"

#include <random>
#include <vector>

namespace pecan::test {

Trace WithUnusedAccesses(const Trace& base, uint64_t seed) {
  std::mt19937_64 random(seed);
  Trace out;
  out.meta = base.meta;
  out.threads = base.threads;
  out.sites = base.sites;
  out.names = base.names;
  auto site = [&] {
    out.sites.push_back(SiteInfo{kNoModule, out.sites.size()});
    return static_cast<SiteId>(out.sites.size() - 1);
  };
  constexpr uint64_t kPrivate = 0x700000, kTable = 0x600000, kBlock = 0x500000;
  int block_owner = -1;  // the thread holding the block now
  std::vector<EventKind> last_kind(base.threads.size(), EventKind::kUnspecified);
  for (EventIndex i = 0; i < base.size_events(); ++i) {
    const ThreadId t = base.thread[i];
    const EventKind k = base.kind[i];
    const bool may_insert = k != EventKind::kThreadBegin && k != EventKind::kThreadEnd &&
                            k != EventKind::kWait && last_kind[t] != EventKind::kWait;
    last_kind[t] = k;
    if (may_insert && random() % 2 == 0) {
      switch (random() % 4) {
        case 0:
        case 1:
          out.push_back(Event{t, random() % 2 ? EventKind::kWrite : EventKind::kRead, 0,
                              static_cast<uint32_t>(1 + random() % 8),
                              kPrivate + t * 0x1000 + random() % 24, site()});
          break;
        case 2:
          out.push_back(Event{t, EventKind::kRead, 0, 8, kTable + 8 * (random() % 4), site()});
          break;
        default:
          if (block_owner < 0) {
            out.push_back(Event{t, EventKind::kAlloc, 0, 32, kBlock, site()});
            block_owner = static_cast<int>(t);
          } else if (block_owner == static_cast<int>(t)) {
            if (random() % 3 == 0) {
              out.push_back(Event{t, EventKind::kFree, 0, 32, kBlock, site()});
              block_owner = -1;
            } else {
              out.push_back(Event{t, EventKind::kWrite, 0, 8, kBlock + 8 * (random() % 4), site()});
            }
          }
      }
    }
    out.push_back(base.event(i));
  }
  return out;
}

}  // namespace pecan::test
