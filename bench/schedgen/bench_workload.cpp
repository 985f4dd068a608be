// MakeWorkload: simulates the workers one event at a time; a worker whose next event is a lock
// acquisition waits while another worker holds the lock, so the trace is a real execution.
#include "bench/schedgen/bench_workload.h"

#include <deque>
#include <random>
#include <vector>

namespace pecan::bench {
namespace {

constexpr uint64_t kLockBase = 0x200000;
constexpr uint64_t kProtectedBase = 0x100000;  // 16 variables per lock
constexpr uint64_t kMixedBase = 0x180000;
constexpr uint64_t kPrivateBase = 0x300000;    // 64 variables per worker

struct Worker {
  ThreadId id = 0;
  std::deque<Event> pending;  // the rest of the step under way
  bool holds_lock = false;
};

}  // namespace

bool IsMixedVariable(uint64_t address) {
  return address >= kMixedBase && address < kMixedBase + 8 * kMixedVariables;
}

Trace MakeWorkload(uint64_t events, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto below = [&](uint64_t n) { return rng() % n; };
  Trace trace;
  trace.meta.program = "/bench/workload";
  trace.meta.producer = "bench_schedgen";
  trace.reserve(events + 64);
  // One site per (thread, kind, target slot): a realistic number of distinct code locations.
  auto site_of = [&](ThreadId t, EventKind kind, uint64_t slot) -> SiteId {
    return static_cast<SiteId>((t * 31 + static_cast<uint32_t>(kind)) * 97 + slot % 97);
  };
  const SiteId max_site = site_of(kWorkers, EventKind::kFence, 96) + 1;
  for (SiteId s = 0; s < max_site; ++s) trace.sites.push_back(SiteInfo{kNoModule, s});
  trace.threads.push_back(ThreadInfo{std::nullopt, 0, "T0"});
  auto emit = [&](const Event& e) { trace.push_back(e); };

  std::vector<Worker> workers(kWorkers);
  for (uint32_t w = 0; w < kWorkers; ++w) {
    const ThreadId child = w + 1;
    trace.threads.push_back(ThreadInfo{0, w, "T" + std::to_string(child)});
    emit(Event{0, EventKind::kFork, 0, 0, child, site_of(0, EventKind::kFork, w)});
    workers[w].id = child;
  }
  std::vector<int> lock_owner(kLocks, -1);

  auto plan_step = [&](Worker& worker) {
    const ThreadId t = worker.id;
    const uint64_t choice = below(100);
    if (choice < 35) {
      const uint64_t lock = below(kLocks);
      const uint64_t lock_addr = kLockBase + 8 * lock;
      worker.pending.push_back(Event{t, EventKind::kLock, 0, 0, lock_addr, site_of(t, EventKind::kLock, lock)});
      const uint64_t accesses = 2 + below(5);
      for (uint64_t a = 0; a < accesses; ++a) {
        const bool mixed = below(4) == 0;
        const uint64_t slot = mixed ? below(kMixedVariables) : below(16);
        const uint64_t addr = mixed ? kMixedBase + 8 * slot : kProtectedBase + 0x1000 * lock + 8 * slot;
        const EventKind kind = below(2) ? EventKind::kWrite : EventKind::kRead;
        worker.pending.push_back(Event{t, kind, 0, 8, addr, site_of(t, kind, slot + (mixed ? 50 : 0))});
      }
      worker.pending.push_back(Event{t, EventKind::kUnlock, 0, 0, lock_addr, site_of(t, EventKind::kUnlock, lock)});
    } else if (choice < 92) {
      const uint64_t slot = below(64);
      const EventKind kind = below(2) ? EventKind::kWrite : EventKind::kRead;
      worker.pending.push_back(Event{t, kind, 0, 8, kPrivateBase + 0x1000 * t + 8 * slot,
                                     site_of(t, kind, slot)});
    } else {
      const uint64_t slot = below(kMixedVariables);
      const EventKind kind = below(10) == 0 ? EventKind::kWrite : EventKind::kRead;
      worker.pending.push_back(Event{t, kind, 0, 8, kMixedBase + 8 * slot, site_of(t, kind, 80 + slot)});
    }
  };

  // Runs the worker's next event if it can; false when it waits for a lock.
  auto step = [&](Worker& worker) -> bool {
    if (worker.pending.empty()) plan_step(worker);
    const Event e = worker.pending.front();
    if (e.kind == EventKind::kLock) {
      const uint64_t lock = (e.addr - kLockBase) / 8;
      if (lock_owner[lock] >= 0) return false;
      lock_owner[lock] = static_cast<int>(worker.id);
    } else if (e.kind == EventKind::kUnlock) {
      lock_owner[(e.addr - kLockBase) / 8] = -1;
    }
    worker.pending.pop_front();
    emit(e);
    return true;
  };

  while (trace.size_events() + 8 * kWorkers < events) {
    Worker& worker = workers[below(kWorkers)];
    // A short burst: threads usually run a few events before a switch, as real ones do.
    const uint64_t burst = 1 + below(8);
    for (uint64_t b = 0; b < burst && step(worker); ++b) {
    }
  }
  // Finish every step under way (critical sections end), then end the workers and join them.
  for (bool progress = true; progress;) {
    progress = false;
    for (Worker& worker : workers) {
      while (!worker.pending.empty() && step(worker)) progress = true;
    }
  }
  for (uint32_t w = 0; w < kWorkers; ++w) {
    emit(Event{0, EventKind::kJoin, 0, 0, workers[w].id, site_of(0, EventKind::kJoin, w)});
  }
  return trace;
}

}  // namespace pecan::bench
