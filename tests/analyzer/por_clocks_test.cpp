// PorClocks::LeastKnown: what a thread's later events know at the least, for a thread that ran,
// one whose fork ran, and one whose fork has not run yet (SetForkers).
#include <catch2/catch.hpp>

#include "analyzer/por_clocks.h"
#include "trace_builder.h"

using namespace pecan;

TEST_CASE("LeastKnown of a thread not started yet is its forker's", "[por]") {
  testing::TraceBuilder b;
  b.Write(1, 0x100);                               // thread 1: local 0
  b.Write(1, 0x100);                               // local 1
  b.AtomicStore(1, 0x600, MemoryOrder::kRelease);  // local 2
  b.AtomicLoad(0, 0x600, MemoryOrder::kAcquire);   // thread 0 learns thread 1's first three
  b.Fork(0, 2);  // thread 0 starts thread 2 (a fork before 2's first event)
  b.Write(2, 0x100);
  b.Write(1, 0x100);  // thread 1 runs on (local 3)
  const Trace& trace = b.trace();
  std::vector<EventIndex> final_event = {4, 6, 5};
  auto feed = [&](PorClocks& por, EventIndex upto) {
    for (EventIndex i = 0; i < upto; ++i) por.Visit(i, trace.event(i));
  };

  PorClocks plain(3, {}, final_event, false);
  PorClocks forked(3, {}, final_event, false);
  forked.SetForkers({kNoThread, kNoThread, 0});
  feed(plain, 4);  // up to thread 0's acquire
  feed(forked, 4);
  CHECK(plain.LeastKnown(0, 1) == 3);
  // Thread 2's fork has not run: without forkers it knows nothing for sure; with them, at least
  // what thread 0 knows now, and of thread 0 itself at least the events it ran.
  CHECK(plain.LeastKnown(2, 1) == 0);
  CHECK(forked.LeastKnown(2, 1) == 3);
  CHECK(forked.LeastKnown(2, 0) == 1);
  // Once the fork ran, its message says (the same with or without forkers).
  plain.Visit(4, trace.event(4));
  forked.Visit(4, trace.event(4));
  CHECK(plain.LeastKnown(2, 1) == 3);
  CHECK(forked.LeastKnown(2, 0) == 2);
  CHECK(plain.LeastKnown(2, 0) == 2);
}
