// KeptAccesses::TrackGuards: per kept location, the lock every access held, the lock every access
// inside a region held, and which threads made region accesses, as the first pass sees them.
#include <catch2/catch.hpp>

#include "analyzer/access_locations.h"
#include "analyzer/window_prefilter.h"
#include "kept_location.h"
#include "trace_builder.h"

using namespace pecan;

namespace {

constexpr uint64_t kX = 0x100, kY = 0x108, kZ = 0x110, kW = 0x118, kR = 0x120, kA = 0x128;
constexpr uint64_t kL = 0x900, kM = 0x908, kRw = 0x910;

// The guards of the location of access `i` (which must be kept).
AccessGuards GuardsAt(const Trace& trace, EventIndex i) {
  KeptAccesses kept;
  kept.TrackGuards();
  const LocationId l = test::ScanAndLocate(kept, trace, i);
  REQUIRE(kept.GuardsOf().size() == kept.Locations().size());
  return kept.GuardsOf()[l];
}

}  // namespace

TEST_CASE("a location every thread accesses under one lock has it as guard",
          "[analysis][access_guards]") {
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Lock(1, kL);
  const EventIndex x = b.Write(1, kX, 1);
  b.Lock(1, kM);  // a nested lock does not change the guard
  b.Read(1, kX, 2);
  b.Unlock(1, kM);
  b.Unlock(1, kL);
  b.Lock(2, kM);  // the outer lock here is M, but L is still held at every access
  b.Lock(2, kL);
  b.Write(2, kX, 3);
  b.Unlock(2, kL);
  b.Unlock(2, kM);
  const AccessGuards g = GuardsAt(b.trace(), x);
  CHECK(g.guard == kL);
  CHECK(g.region_guard == kL);
  CHECK(g.region_many_threads);
  CHECK(g.RegionAccessByOtherThan(1));
  CHECK(g.RegionAccessByOtherThan(2));
  // Both regions take a second lock after their first event: their windows may lack one.
  CHECK(g.locks_change_in_region);
  CHECK_FALSE(g.WindowsHold(g.region_guard));
}

TEST_CASE("an access without the lock clears the guard for good", "[analysis][access_guards]") {
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Lock(1, kL);
  const EventIndex y = b.Write(1, kY, 1);
  b.Unlock(1, kL);
  b.Lock(2, kM);  // under another lock: no lock is common to all
  b.Write(2, kY, 2);
  b.Unlock(2, kM);
  b.Lock(1, kL);
  b.Read(1, kY, 3);
  b.Unlock(1, kL);
  const AccessGuards g = GuardsAt(b.trace(), y);
  CHECK(g.guard == 0);
  CHECK(g.region_guard == 0);
}

TEST_CASE("accesses outside regions count for the guard, not for the region guard",
          "[analysis][access_guards]") {
  testing::TraceBuilder b;
  const EventIndex init = b.Write(0, kW, 1);  // before the threads start, without a lock
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Lock(1, kL);
  b.Write(1, kW, 2);
  b.Unlock(1, kL);
  b.Lock(2, kL);
  b.Write(2, kW, 3);
  b.Unlock(2, kL);
  const AccessGuards g = GuardsAt(b.trace(), init);
  CHECK(g.guard == 0);
  CHECK(g.region_guard == kL);
  CHECK(g.region_thread == 1);
  CHECK(g.region_many_threads);
}

TEST_CASE("a location one thread alone accesses in regions is reached by no other",
          "[analysis][access_guards]") {
  // A per-thread counter: its thread updates it under whatever lock it holds; the main thread
  // reads it after the join, without a lock.
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Lock(1, kL);
  const EventIndex z = b.Write(1, kZ, 1);
  b.Unlock(1, kL);
  b.Lock(1, kM);
  b.Write(1, kZ, 1);
  b.Unlock(1, kM);
  b.Join(0, 1);
  b.Read(0, kZ, 2);
  const AccessGuards g = GuardsAt(b.trace(), z);
  CHECK(g.guard == 0);
  CHECK(g.region_guard == 0);
  CHECK(g.region_thread == 1);
  CHECK_FALSE(g.region_many_threads);
  CHECK_FALSE(g.RegionAccessByOtherThan(1));
  CHECK(g.RegionAccessByOtherThan(0));
}

TEST_CASE("a lock held in read mode is no guard", "[analysis][access_guards]") {
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.ReadLock(1, kRw);
  const EventIndex r = b.Read(1, kR, 1);
  b.ReadUnlock(1, kRw);
  b.Lock(2, kRw);
  b.Write(2, kR, 2);
  b.Unlock(2, kRw);
  const AccessGuards g = GuardsAt(b.trace(), r);
  CHECK(g.guard == 0);
  CHECK(g.region_guard == 0);
}

TEST_CASE("an access inside an annotated region is a region access without a lock",
          "[analysis][access_guards]") {
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.RegionBegin(1);
  const EventIndex a = b.Write(1, kA, 1);
  b.RegionEnd(1);
  b.Lock(2, kL);
  b.Write(2, kA, 2);
  b.Unlock(2, kL);
  b.RegionEnd(2);  // an end without a begin opens nothing
  b.Write(2, kA, 3);
  const AccessGuards g = GuardsAt(b.trace(), a);
  CHECK(g.region_thread == 1);
  CHECK(g.region_many_threads);
  CHECK(g.region_guard == 0);
  CHECK(g.guard == 0);
}

TEST_CASE("a location whose regions keep one lock set has windows that hold its guard",
          "[analysis][access_guards]") {
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Lock(1, kL);
  const EventIndex x = b.Write(1, kX, 1);
  b.Write(1, kY, 2);
  b.Read(1, kX, 3);
  b.Unlock(1, kL);
  b.Lock(2, kL);
  b.Lock(2, kL);  // taken again: the same set
  b.Read(2, kX, 4);
  b.Unlock(2, kL);
  b.Unlock(2, kL);
  b.Write(0, kZ, 5);
  const AccessGuards g = GuardsAt(b.trace(), x);
  CHECK(g.region_guard == kL);
  CHECK_FALSE(g.locks_change_in_region);
  CHECK(g.WindowsHold(g.region_guard));
  CHECK(g.WindowsHold(g.guard));
  CHECK_FALSE(g.WindowsHold(0));  // no lock: nothing is held
}

TEST_CASE("a lock set change anywhere in a region marks the locations it accesses",
          "[analysis][access_guards]") {
  auto changed = [](auto&& build) {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    b.Fork(0, 2);
    const EventIndex x = build(b);
    b.Lock(2, kL);  // another thread's region access, under L
    b.Write(2, kX, 9);
    b.Unlock(2, kL);
    return GuardsAt(b.trace(), x).locks_change_in_region;
  };
  SECTION("a lock taken after the access") {
    CHECK(changed([](testing::TraceBuilder& b) {
      b.Lock(1, kL);
      const EventIndex x = b.Write(1, kX, 1);
      b.Lock(1, kM);
      b.Unlock(1, kM);
      b.Unlock(1, kL);
      return x;
    }));
  }
  SECTION("a lock given back before the access") {
    CHECK(changed([](testing::TraceBuilder& b) {
      b.Lock(1, kM);
      b.Lock(1, kL);
      b.Unlock(1, kM);
      const EventIndex x = b.Write(1, kX, 1);
      b.Unlock(1, kL);
      return x;
    }));
  }
  SECTION("a lock taken inside an annotated region") {
    CHECK(changed([](testing::TraceBuilder& b) {
      b.RegionBegin(1);
      b.Lock(1, kL);
      const EventIndex x = b.Write(1, kX, 1);
      b.Unlock(1, kL);
      b.RegionEnd(1);
      return x;
    }));
  }
  SECTION("a change in one of the location's regions, not the first") {
    CHECK(changed([](testing::TraceBuilder& b) {
      b.Lock(1, kL);
      const EventIndex x = b.Write(1, kX, 1);
      b.Unlock(1, kL);
      b.Lock(1, kL);
      b.Read(1, kX, 2);
      b.Lock(1, kM);
      b.Unlock(1, kM);
      b.Unlock(1, kL);
      return x;
    }));
  }
  SECTION("a change in the region before, which closed") {
    CHECK_FALSE(changed([](testing::TraceBuilder& b) {
      b.Lock(1, kM);
      b.Lock(1, kL);
      b.Write(1, kY, 1);
      b.Unlock(1, kL);
      b.Unlock(1, kM);
      b.Lock(1, kL);
      const EventIndex x = b.Write(1, kX, 2);
      b.Unlock(1, kL);
      return x;
    }));
  }
  SECTION("an annotation inside a region, its lock set unchanged") {
    CHECK_FALSE(changed([](testing::TraceBuilder& b) {
      b.Lock(1, kL);
      b.RegionBegin(1);
      const EventIndex x = b.Write(1, kX, 1);
      b.RegionEnd(1);
      b.Unlock(1, kL);
      return x;
    }));
  }
}

TEST_CASE("a long region that other regions interleave with still marks every key it accessed",
          "[analysis][access_guards]") {
  // Threads 1 and 2 each stay in one region while they take turns on the same 3000 words, so
  // each thread lists a word again after the other's access (the list is made unique as it
  // grows). Then thread 1 takes a second lock: every word it accessed is marked, even the first.
  constexpr uint64_t kWords = 3000;
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Lock(1, kL);
  b.Lock(2, kM);
  EventIndex first = 0;
  for (int round = 0; round < 2; ++round) {
    for (uint64_t w = 0; w < kWords; ++w) {
      const EventIndex at = b.Write(1, 0x10000 + 8 * w, 1);
      if (round == 0 && w == 0) first = at;
      b.Read(2, 0x10000 + 8 * w, 2);
    }
  }
  b.Lock(1, kRw);
  b.Unlock(1, kRw);
  b.Unlock(1, kL);
  b.Unlock(2, kM);
  KeptAccesses kept;
  kept.TrackGuards();
  const LocationId l = test::ScanAndLocate(kept, b.trace(), first);
  size_t marked = 0;
  for (const AccessGuards& g : kept.GuardsOf()) marked += g.locks_change_in_region;
  CHECK(kept.GuardsOf()[l].locks_change_in_region);
  CHECK(marked == kWords);
}

TEST_CASE("a region that spans more events of its thread than a window prefilter covers is long",
          "[analysis][access_guards]") {
  // Thread 1's region from its LOCK to its UNLOCK spans `inside` + 1 of its events; thread 2's
  // events in between do not count.
  auto guards = [](uint64_t inside, bool close) {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    b.Fork(0, 2);
    b.Lock(1, kL);
    const EventIndex x = b.Write(1, kX, 1);
    for (uint64_t k = 1; k < inside; ++k) {
      b.Read(1, kY, 2);
      b.Write(2, kZ, 3);
      b.Write(2, kZ, 3);
    }
    if (close) b.Unlock(1, kL);
    b.Lock(2, kL);
    b.Read(2, kX, 4);
    b.Unlock(2, kL);
    return GuardsAt(b.trace(), x);
  };
  const AccessGuards fits = guards(WindowPrefilter::kSlots - 1, true);
  CHECK_FALSE(fits.long_region);
  CHECK(fits.PrefilterSkipsHolding(fits.guard));
  const AccessGuards spans = guards(WindowPrefilter::kSlots, true);
  CHECK(spans.long_region);
  CHECK(spans.WindowsHold(spans.guard));
  CHECK_FALSE(spans.PrefilterSkipsHolding(spans.guard));
  // A region still open at the trace's end lasts until the thread's last event.
  CHECK_FALSE(guards(WindowPrefilter::kSlots - 2, false).long_region);
  CHECK(guards(WindowPrefilter::kSlots + 1, false).long_region);
}
