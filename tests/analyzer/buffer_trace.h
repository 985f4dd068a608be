// BufferHandoff: random traces of threads that hand byte buffers to each other, the shape of a
// parallel compressor's block pool, for the tests that hold the streaming race search to Analyze
// on locations of many access classes (a class per thread, site, kind, lock set and bytes).
#pragma once

#include <cstdint>
#include <random>

#include "trace_builder.h"

namespace pecan::test {

// Workers 1.. (2 to 4 threads in all) take turns filling a buffer (one block write, or writes of
// a few bytes each) and reading it back: byte by byte in order, at random bytes, and in ranges of
// random length (a match's bytes), at several sites, and at times writing bytes of it (an output
// buffer). A handoff is ordered (a happens-before annotation) in about half the turns; otherwise
// the two threads meet only at a lock. Some reads hold a lock. With 1 to 2 buffers of 24 to 64
// bytes, a buffer soon has more classes than the search follows threads from (16), and many of
// its classes keep their first member only. `length`: about how many events.
inline Trace BufferHandoff(uint64_t seed, size_t length = 1500) {
  constexpr uint64_t kBuffer = 0x10000, kLock = 0x900, kOther = 0x940, kKey = 0x70000;
  std::mt19937_64 random(seed * 104729 + 7);
  const ThreadId threads = static_cast<ThreadId>(3 + random() % 3);
  const uint64_t buffers = 1 + random() % 2;
  const uint64_t size = 24 + random() % 41;
  pecan::testing::TraceBuilder b;
  for (ThreadId t = 1; t < threads; ++t) b.Fork(0, t);
  auto worker = [&] { return static_cast<ThreadId>(1 + random() % (threads - 1)); };
  auto range = [&](uint64_t most) { return 1 + random() % most; };
  uint64_t keys = 0;
  while (b.trace().size_events() < length) {
    const uint64_t base = kBuffer + 0x1000 * (random() % buffers);
    const ThreadId from = worker();
    ThreadId to = worker();
    // Fill: a block write, or writes of a few bytes each.
    if (random() % 2 == 0) {
      b.Add(from, EventKind::kWrite, base, static_cast<uint32_t>(size), 0, 10);
    } else {
      for (uint64_t at = 0; at < size;) {
        const uint64_t n = std::min(range(8), size - at);
        b.Add(from, EventKind::kWrite, base + at, static_cast<uint32_t>(n), 0, 11);
        at += n;
      }
    }
    // Handoff: ordered by an annotation, or a lock alone.
    b.Lock(from, kLock);
    if (random() % 2 == 0) b.HbRelease(from, kKey + keys);
    b.Unlock(from, kLock);
    b.Lock(to, kLock);
    if (random() % 2 == 0) b.HbAcquire(to, kKey + keys);
    b.Unlock(to, kLock);
    ++keys;
    // Read back, at times writing bytes of it, some of it under another lock.
    const bool locked = random() % 5 == 0;
    if (locked) b.Lock(to, kOther);
    const uint64_t step = 1 + random() % 3;
    for (uint64_t at = 0; at < size; at += step) {
      b.Add(to, EventKind::kRead, base + at, 1, 0, 20);
      const uint64_t roll = random() % 10;
      if (roll == 0) {
        const uint64_t x = random() % size;
        b.Add(to, EventKind::kRead, base + x, static_cast<uint32_t>(std::min(range(6), size - x)),
              0, 21);
      } else if (roll == 1) {
        b.Add(to, EventKind::kRead, base + random() % size, 1, 0, static_cast<SiteId>(22 + roll));
      } else if (roll == 2) {
        b.Add(to, EventKind::kWrite, base + random() % size, 1, 0, 25);
      }
    }
    if (locked) b.Unlock(to, kOther);
  }
  // Most workers end before their join.
  for (ThreadId t = 1; t < threads; ++t) {
    if (seed % 3 != 0) b.End(t);
    b.Join(0, t);
  }
  if (seed % 4 == 0) b.Read(0, kBuffer, 30);  // after the joins: ordered after every access
  return b.trace();
}

}  // namespace pecan::test
