// KeptAccesses::LastNewClasses with TrackGuards: on a location one thread alone accesses inside
// regions, a new class of that thread, or of a thread that knows its end through JOINs and FORKs,
// cannot complete a unit and does not hold the units back; any other new class does.
#include <catch2/catch.hpp>

#include "analyzer/access_locations.h"
#include "kept_location.h"
#include "trace_builder.h"

using namespace pecan;

namespace {

constexpr uint64_t kCount = 0x400, kOther = 0x408, kL = 0x900;

// LastNewClasses of the location of access `i` (which must be kept).
EventIndex LastNewClassAt(const Trace& trace, EventIndex i) {
  KeptAccesses kept;
  kept.TrackClasses();
  kept.TrackGuards();
  return kept.LastNewClasses()[test::ScanAndLocate(kept, trace, i)];
}

// Thread `t` counts in `addr` inside a critical section, twice (a unit's two accesses).
EventIndex CountTwice(testing::TraceBuilder& b, ThreadId t, uint64_t addr) {
  b.Lock(t, kL);
  const EventIndex first = b.Read(t, addr, 10);
  b.Write(t, addr, 11);
  b.Unlock(t, kL);
  return first;
}

}  // namespace

TEST_CASE("a read after joining the counting thread's end holds no unit back",
          "[analysis][last_new_classes]") {
  testing::TraceBuilder b;
  b.Fork(0, 1);
  const EventIndex count = CountTwice(b, 1, kCount);
  CountTwice(b, 1, kCount);
  b.End(1);
  b.Join(0, 1);
  const EventIndex read = b.Read(0, kCount, 20);
  b.Read(0, kCount, 21);
  CHECK(LastNewClassAt(b.trace(), count) < read);
}

TEST_CASE("a read before the join, or after a join without the end, holds the units back",
          "[analysis][last_new_classes]") {
  SECTION("before the join") {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    const EventIndex count = CountTwice(b, 1, kCount);
    const EventIndex read = b.Read(0, kCount, 20);
    b.End(1);
    b.Join(0, 1);
    CHECK(LastNewClassAt(b.trace(), count) == read);
  }
  SECTION("a join of a thread whose end is not in the trace") {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    const EventIndex count = CountTwice(b, 1, kCount);
    b.Join(0, 1);
    const EventIndex read = b.Read(0, kCount, 20);
    CHECK(LastNewClassAt(b.trace(), count) == read);
  }
  SECTION("a thread that accesses after its end turns the distinction off") {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    const EventIndex count = CountTwice(b, 1, kCount);
    b.End(1);
    b.Join(0, 1);
    const EventIndex read = b.Read(0, kCount, 20);
    b.Read(1, kOther, 30);
    CHECK(LastNewClassAt(b.trace(), count) == read);
  }
}

TEST_CASE("the end of a thread is known through joins and forks after it",
          "[analysis][last_new_classes]") {
  SECTION("through a join of the joiner") {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    b.Fork(0, 2);
    const EventIndex count = CountTwice(b, 1, kCount);
    b.End(1);
    b.Join(2, 1);
    b.End(2);
    b.Join(0, 2);
    const EventIndex read = b.Read(0, kCount, 20);
    CHECK(LastNewClassAt(b.trace(), count) < read);
  }
  SECTION("through a fork after the join") {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    const EventIndex count = CountTwice(b, 1, kCount);
    b.End(1);
    b.Join(0, 1);
    b.Fork(0, 2);
    const EventIndex read = b.Read(2, kCount, 20);
    CHECK(LastNewClassAt(b.trace(), count) < read);
  }
  SECTION("not through a fork before the join") {
    testing::TraceBuilder b;
    b.Fork(0, 1);
    b.Fork(0, 2);
    const EventIndex count = CountTwice(b, 1, kCount);
    b.End(1);
    b.Join(0, 1);
    const EventIndex read = b.Read(2, kCount, 20);
    CHECK(LastNewClassAt(b.trace(), count) == read);
  }
}

TEST_CASE("a location two threads access inside regions counts every new class",
          "[analysis][last_new_classes]") {
  testing::TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  const EventIndex count = CountTwice(b, 1, kCount);
  CountTwice(b, 2, kCount);
  b.End(1);
  b.End(2);
  b.Join(0, 1);
  b.Join(0, 2);
  const EventIndex read = b.Read(0, kCount, 20);
  // Thread 0 knows both ends, but the classes are followed per key and the key's region threads
  // are two: its read counts.
  CHECK(LastNewClassAt(b.trace(), count) == read);
}
