// GuardedHeavy: random interleavings of threads that meet only at locks, the shape of a striped
// hash map or a cache, for the tests that hold the streaming searches of atomic regions to Analyze
// where the first pass finds guards (KeptAccesses::TrackGuards).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "trace_builder.h"

namespace pecan::test {

// Workers 1.. (2 to 4 threads in all) run critical sections over 2-5 variables. Most variables
// have a lock of their own (some share one) that every access holds; the others are accessed
// under whatever lock is held, or none. In some sections an outer lock keeps the region open while
// the thread lets a variable's lock go and takes it again, so that some windows do not hold the
// guard. Each worker counts in a variable of its own inside its sections, which the main thread
// reads after joining it (in most traces after the worker's THREAD_END). `length`: about how many
// events (0: 60 to 180, by the seed). With `long_sections`, about one section in ten starts with
// a long stretch between two accesses to its variable, so that windows may span more slots than
// the window prefilter covers.
inline Trace GuardedHeavy(uint64_t seed, size_t length = 0, bool long_sections = false) {
  constexpr uint64_t kV = 0x100, kCount = 0x400, kL = 0x900, kOuter = 0x980;
  std::mt19937_64 random(seed * 7919 + 11);
  const ThreadId threads = static_cast<ThreadId>(2 + random() % 3);
  const uint64_t variables = 2 + random() % 4;
  const uint64_t locks = 1 + random() % 3;
  std::vector<uint64_t> guard(variables);  // 0: none
  for (uint64_t v = 0; v < variables; ++v) guard[v] = random() % 4 == 0 ? 0 : kL + 8 * (v % locks);
  pecan::testing::TraceBuilder b;
  for (ThreadId t = 1; t < threads; ++t) b.Fork(0, t);
  auto site = [&](ThreadId t, uint64_t v, bool write) {
    return static_cast<SiteId>(1 + (t % 2) * 32 + v * 2 + (write ? 1 : 0));
  };
  auto access = [&](ThreadId t, uint64_t v) {
    const bool write = random() % 2 == 0;
    if (write) {
      b.Write(t, kV + 8 * v, site(t, v, true));
    } else {
      b.Read(t, kV + 8 * v, site(t, v, false));
    }
  };
  const size_t events = length == 0 ? 60 + random() % 120 : length;
  while (b.trace().size_events() < events) {
    const ThreadId t = static_cast<ThreadId>(1 + random() % (threads - 1));
    const uint64_t v = random() % variables;
    const uint64_t roll = random() % 100;
    if (guard[v] == 0 && roll < 20) {  // an unguarded variable, without a lock
      access(t, v);
      continue;
    }
    const bool outer = roll >= 80;
    if (outer) b.Lock(t, kOuter);
    const uint64_t lock = guard[v] != 0 ? guard[v] : kL + 8 * (random() % locks);
    b.Lock(t, lock);
    if (long_sections && roll % 10 == 1) {
      // A long section: the variable, 50 to 90 events on the others (or the worker's counter),
      // and the variable again.
      access(t, v);
      for (uint64_t n = 50 + random() % 41; n > 0; --n) {
        const uint64_t w = random() % variables;
        if (w != v && (guard[w] == 0 || guard[w] == lock)) {
          access(t, w);
        } else {
          b.Read(t, kCount + 8 * t, 60);
        }
      }
      access(t, v);
    }
    const uint64_t n = 1 + random() % 4;
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t w = random() % variables;
      if (guard[w] == 0 || guard[w] == lock) access(t, w);
    }
    if (random() % 3 == 0) {
      b.Read(t, kCount + 8 * t, 60);
      b.Write(t, kCount + 8 * t, 61);
    }
    b.Unlock(t, lock);
    if (outer) {
      // The region stays open: the variable's lock is taken again, or an unguarded variable is
      // accessed under the outer lock alone.
      if (random() % 2 == 0) {
        b.Lock(t, lock);
        access(t, v);
        b.Unlock(t, lock);
      } else {
        for (uint64_t w = 0; w < variables; ++w) {
          if (guard[w] == 0) access(t, w);
        }
      }
      b.Unlock(t, kOuter);
    }
  }
  // Mostly each worker ends before its join: the joiner then knows all of it.
  const bool ends = seed % 4 != 0;
  for (ThreadId t = 1; t < threads; ++t) {
    if (ends) b.End(t);
    b.Join(0, t);
    b.Read(0, kCount + 8 * t, 62);
  }
  return b.trace();
}

}  // namespace pecan::test
