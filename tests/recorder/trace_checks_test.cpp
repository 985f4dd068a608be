// The trace checks themselves, on hand-built traces: what a recording may legitimately show
// passes, and what a broken recorder would write is named.
#include <catch2/catch.hpp>

#include "tests/support/trace_builder.h"
#include "trace_checks.h"

namespace pecan::rt_test {
namespace {

using test::TraceBuilder;

// The consumer waits, is woken by the first notify, and waits again before the producer's
// second signal (stamped while the consumer still held the mutex) wakes it.
TraceBuilder TwoWakeUps(int notifies) {
  TraceBuilder b;
  b.Lock(1, "m");
  b.Unlock(1, "m");                     // wait 1 begins
  b.Notify(0, "cv");                    // stamped, then signalled: wakes wait 1
  if (notifies > 1) b.Notify(0, "cv");  // stamped; its signal comes later
  b.Wait(1, "cv");
  b.Lock(1, "m");
  b.Unlock(1, "m");  // wait 2 begins
  b.Wait(1, "cv");   // woken by the second signal
  b.Lock(1, "m");
  b.Unlock(1, "m");
  return b;
}

TEST_CASE("a notify stamped before a wait began may be the one that wakes it", "[recorder]") {
  CHECK(CheckWaitNotify(TwoWakeUps(2).Build()).empty());
}

TEST_CASE("a notify wakes one wait at most; a broadcast wakes them all", "[recorder]") {
  const Violations found = CheckWaitNotify(TwoWakeUps(1).Build());
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0], Catch::Contains("event 6") && Catch::Contains("no NOTIFY left"));

  TraceBuilder broadcast;
  broadcast.NotifyAll(0, "cv");
  for (ThreadId t : {1, 2}) {
    broadcast.Wait(t, "cv");
    broadcast.Lock(t, "m");
    broadcast.Unlock(t, "m");
  }
  CHECK(CheckWaitNotify(broadcast.Build()).empty());
}

TEST_CASE("a wait that timed out needs no notify, and every wait re-acquires", "[recorder]") {
  TraceBuilder b;
  b.Wait(1, "cv", /*timed_out=*/true);
  b.Lock(1, "m");
  b.Wait(2, "cv", /*timed_out=*/true);
  b.Unlock(2, "m");
  const Violations found = CheckWaitNotify(b.Build());
  REQUIRE(found.size() == 1);
  CHECK_THAT(found[0], Catch::Contains("WAIT not followed by LOCK"));
}

}  // namespace
}  // namespace pecan::rt_test
