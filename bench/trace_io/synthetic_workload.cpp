// The benchmark's workload: each worker runs the loop
//   process(): a[i] read, b[i] read, c[i] = ..., config read; every 16th iteration
//   lock(m) counter++ unlock(m); every 8th an atomic fetch_add; every 64th a nested call.
// Thread 0 forks the workers first and joins them as they finish.
#include "synthetic_workload.h"

namespace pecan::bench {
namespace {

constexpr uint64_t kArrayA = 0x7f3a10000000;
constexpr uint64_t kArrayB = 0x7f3a20000000;
constexpr uint64_t kArrayC = 0x7f3a30000000;
constexpr uint64_t kArrayBytes = 1 << 22;  // each worker walks its slice of 4 MiB arrays
constexpr uint64_t kConfig = 0x601040;
constexpr uint64_t kCounter = 0x601080;
constexpr uint64_t kAtomicCounter = 0x6010c0;
constexpr uint64_t kMutex = 0x601100;
constexpr uint64_t kFunction = 0x401200;

// Sites: one per statement of the worker's code, shared by all workers.
enum Site : SiteId {
  kSiteMain,
  kSiteFork,
  kSiteJoin,
  kSiteEnterProcess,
  kSiteReadA,
  kSiteReadB,
  kSiteWriteC,
  kSiteReadConfig,
  kSiteLock,
  kSiteReadCounter,
  kSiteWriteCounter,
  kSiteUnlock,
  kSiteAtomic,
  kSiteEnterHelper,
  kSiteHelperRead,
  kSiteExitHelper,
  kSiteExitProcess,
  kSiteCount
};

}  // namespace

SyntheticWorkload::SyntheticWorkload(const WorkloadShape& shape)
    : shape_(shape), rng_(shape.seed), run_length_(1.0 / shape.mean_run) {
  module_ = ModuleInfo{1, "/usr/local/bin/workload", 0x400000, "\x12\x34\x56\x78"};
  threads_.push_back(ThreadInfo{std::nullopt, 0, "main"});
  for (uint32_t w = 0; w < shape.workers; ++w)
    threads_.push_back(ThreadInfo{0, w, "worker-" + std::to_string(w)});
  for (SiteId s = 0; s < kSiteCount; ++s) sites_.push_back(SiteInfo{1, 0x1100 + 0x13 * s});
  names_ = {AddressName{kConfig, 8, "config"}, AddressName{kCounter, 8, "counter"},
            AddressName{kAtomicCounter, 8, "hits"}, AddressName{kMutex, 40, "counter_lock"}};
  workers_.resize(shape.workers + 1);
  for (uint32_t w = 1; w <= shape.workers; ++w) {
    uint64_t slice = (w - 1) * (kArrayBytes / shape.workers);
    workers_[w].a = kArrayA + slice;
    workers_[w].b = kArrayB + slice;
    workers_[w].c = kArrayC + slice;
  }
}

Event SyntheticWorkload::Next() {
  // The main thread forks every worker first.
  if (emitted_ < shape_.workers) {
    ++emitted_;
    return Event{0, EventKind::kFork, 0, 0, emitted_, kSiteFork};
  }
  if (left_in_run_ == 0) {
    current_ = 1 + static_cast<ThreadId>(rng_() % shape_.workers);
    left_in_run_ = 1 + run_length_(rng_);
  }
  --left_in_run_;
  ++emitted_;
  return Step(current_);
}

Event SyntheticWorkload::Step(ThreadId t) {
  Worker& w = workers_[t];
  auto access = [t](EventKind kind, uint64_t addr, SiteId site) {
    return Event{t, kind, 0, 8, addr, site};
  };
  // The loop body as a little state machine; `step` walks it.
  while (true) {
    switch (w.step++) {
      case 0:
        return Event{t, EventKind::kFuncEntry, 0, 0, 0, kSiteEnterProcess};
      case 1:
        return access(EventKind::kRead, w.a + 8 * (w.iteration % (kArrayBytes / 64)), kSiteReadA);
      case 2:
        return access(EventKind::kRead, w.b + 8 * (w.iteration % (kArrayBytes / 64)), kSiteReadB);
      case 3:
        return access(EventKind::kWrite, w.c + 8 * (w.iteration % (kArrayBytes / 64)), kSiteWriteC);
      case 4:
        return access(EventKind::kRead, kConfig, kSiteReadConfig);
      case 5:
        if (w.iteration % 16 != 0) {
          w.step = 9;
          continue;
        }
        return Event{t, EventKind::kLock, 0, 0, kMutex, kSiteLock};
      case 6:
        return access(EventKind::kRead, kCounter, kSiteReadCounter);
      case 7:
        return access(EventKind::kWrite, kCounter, kSiteWriteCounter);
      case 8:
        return Event{t, EventKind::kUnlock, 0, 0, kMutex, kSiteUnlock};
      case 9:
        if (w.iteration % 8 != 0) {
          w.step = 10;
          continue;
        }
        return Event{t, EventKind::kAtomicRmw, static_cast<uint8_t>(MemoryOrder::kSeqCst),
                     8, kAtomicCounter,        kSiteAtomic};
      case 10:
        if (w.iteration % 64 != 0) {
          w.step = 13;
          continue;
        }
        return Event{t, EventKind::kFuncEntry, 0, 0, 0, kSiteEnterHelper};
      case 11:
        return access(EventKind::kRead, kConfig + 8, kSiteHelperRead);
      case 12:
        return Event{t, EventKind::kFuncExit, 0, 0, 0, kSiteExitHelper};
      default:
        w.step = 0;
        ++w.iteration;
        return Event{t, EventKind::kFuncExit, 0, 0, 0, kSiteExitProcess};
    }
  }
}

}  // namespace pecan::bench
