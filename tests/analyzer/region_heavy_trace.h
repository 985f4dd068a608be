// RegionHeavy: random interleavings whose critical sections hold several accesses to a few
// shared variables, and the random generator's settings, for the tests that hold the streaming
// searches of atomic regions to Analyze.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "tests/support/random_trace_generator.h"
#include "trace_builder.h"

namespace pecan::test {

// An interleaving (not necessarily a feasible one) of 2-4 threads that mostly access 1-3
// variables in critical sections of 1-2 locks, several accesses each, and otherwise without
// locks; sites depend on the thread's role and the variable, so classes collect many members.
// Release stores and acquire loads of a flag, and notifies and waits, order some of it.
// `length`: about how many events (0: 40 to 120, by the seed).
inline Trace RegionHeavy(uint64_t seed, size_t length = 0) {
  constexpr uint64_t kX = 0x100, kL = 0x900;  // the first variable, the first lock
  std::mt19937_64 random(seed * 6151 + 3);
  const ThreadId threads = static_cast<ThreadId>(2 + random() % 3);
  const uint64_t variables = 1 + random() % 3;
  const uint32_t roles = 1 + static_cast<uint32_t>(random() % 2);
  pecan::testing::TraceBuilder b;
  for (ThreadId t = 1; t < threads; ++t) b.Fork(0, t);
  std::vector<std::vector<uint64_t>> held(threads);
  const size_t drawn = 40 + random() % 80;
  const size_t events = length == 0 ? drawn : length;
  for (size_t n = 0; n < events; ++n) {
    const ThreadId t = static_cast<ThreadId>(random() % threads);
    const uint64_t var = kX + 8 * (random() % variables);
    const auto site = static_cast<SiteId>(1 + (t % roles) * 16 + (var - kX) / 8 * 2);
    const uint64_t roll = random() % 100;
    std::vector<uint64_t>& locks = held[t];
    if (roll < 12 && locks.size() < 2) {
      const uint64_t lock = kL + 8 * (random() % 2);
      if (std::find(locks.begin(), locks.end(), lock) == locks.end()) {
        b.Lock(t, lock);
        locks.push_back(lock);
      }
    } else if (roll < 22 && !locks.empty()) {
      b.Unlock(t, locks.back());
      locks.pop_back();
    } else if (roll < 25) {
      b.AtomicStore(t, 0x600, MemoryOrder::kRelease, 40);
    } else if (roll < 28) {
      b.AtomicLoad(t, 0x600, MemoryOrder::kAcquire, 41);
    } else if (roll < 30) {
      b.NotifyAll(t, 0x700);
    } else if (roll < 32 && locks.empty()) {
      b.Wait(t, 0x700);
    } else if (roll < 66) {
      b.Read(t, var, site);
    } else {
      b.Write(t, var, static_cast<SiteId>(site + 1));
    }
  }
  for (ThreadId t = 0; t < threads; ++t) {
    while (!held[t].empty()) {
      b.Unlock(t, held[t].back());
      held[t].pop_back();
    }
  }
  return b.trace();
}

// The random generator's settings of the property tests of those searches (the odd seeds; the
// even ones are RegionHeavy): up to 4 threads, 3 variables and 3 locks nested up to 3 deep,
// 30 to 70 events, atomics and read locks.
inline RandomTraceOptions RegionSearchOptions() {
  RandomTraceOptions options;
  options.max_threads = 4;
  options.min_events = 30;
  options.max_events = 70;
  options.max_variables = 3;
  options.max_locks = 3;
  options.max_lock_depth = 3;
  options.atomics = true;
  options.read_locks = true;
  return options;
}

}  // namespace pecan::test
