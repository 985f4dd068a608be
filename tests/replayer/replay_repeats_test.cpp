// Following clips of traces recorded with repeats left out (recorder/repeat_filter.h): a
// thread's repeats of an access run without steps, exactly as many as the recording left out
// before each step; one more is a divergence; a recorded repeat matches only a repeat of the
// same earlier step.
#include <catch2/catch.hpp>

#include <thread>

#include "scheduler_harness.h"

namespace pecan::replay::testing {
namespace {

using K = EventKind;

constexpr uint64_t kX = 0x1000;
constexpr uint64_t kY = 0x2000;

// Main forks T1, which reads x at site 10 and then writes at site 11; main writes at site 2.
// `repeat_of` and `repeats_before` are the clip's per-step columns.
proto::Clip ReadThenWriteClip(std::vector<uint64_t> repeat_of, std::vector<uint32_t> before) {
  proto::Clip clip = MakeClip("0 1<0", "T0:fork@1 T1:read@10 T1:read@10 T1:write@11 T0:write@2");
  for (uint64_t r : repeat_of) clip.add_step_repeat_of(r);
  for (uint32_t b : before) clip.add_step_repeats_before(b);
  return clip;
}

// Runs the clip with T1 reading (site 10) the given addresses, then writing (site 11).
void Run(ScheduledRun& run, const std::vector<uint64_t>& reads) {
  Scheduler& s = run.scheduler;
  std::thread main_thread([&] {
    s.AttachMainThread();
    s.OnEvent(Ev(K::kFork, 1));
    LogicalThread id = s.ReserveChild();
    s.ChildForked(id);  // its FORK has run
    std::thread child([&, id] {
      s.AttachThread(id);
      for (uint64_t addr : reads) s.OnEvent(Ev(K::kRead, 10, addr));
      s.OnEvent(Ev(K::kWrite, 11, kX));
      s.DetachThread();
    });
    s.OnEvent(Ev(K::kWrite, 2));
    child.join();
    s.DetachThread();
  });
  main_thread.join();
}

TEST_CASE("repeats the recording left out run without steps", "[replayer][repeats]") {
  // Recorded: read x, then 3 repeats left out, one recorded (the filter had forgotten it),
  // then 2 more left out before the write.
  ScheduledRun run(ReadThenWriteClip({0, 0, 1, 0, 0}, {0, 0, 3, 2, 0}));
  Run(run, {kX, kX, kX, kX, kX, kX, kX});
  REQUIRE_FALSE(run.observer.stopped.has_value());
  CHECK(run.observer.finished);
  CHECK(run.policy.StepsExecuted() == 5);
}

TEST_CASE("fewer repeats than recorded are fine", "[replayer][repeats]") {
  // Plain accesses of different threads are recorded in either order, so a repeat that read a
  // flag just before another thread set it may run after it in replay, and the loop ends early.
  proto::Clip clip = MakeClip("0 1<0", "T0:fork@1 T1:read@10 T1:write@11 T0:write@2");
  for (uint64_t r : {0, 0, 0, 0}) clip.add_step_repeat_of(r);
  for (uint32_t b : {0, 0, 5, 0}) clip.add_step_repeats_before(b);
  ScheduledRun run(clip);
  Run(run, {kX, kX, kX});
  REQUIRE_FALSE(run.observer.stopped.has_value());
  CHECK(run.observer.finished);

  SECTION("but a recorded repeat step that never comes is a divergence") {
    ScheduledRun strict(ReadThenWriteClip({0, 0, 1, 0, 0}, {0, 0, 3, 2, 0}));
    Run(strict, {kX, kX, kX});  // the third read was recorded: its step waits for a repeat
    REQUIRE(strict.observer.stopped.has_value());
    CHECK(strict.observer.stopped->cause == StopCause::kDivergence);
  }
}

TEST_CASE("one repeat more than recorded is a divergence", "[replayer][repeats]") {
  // A spin loop on a flag the schedule never sets repeats without end: it must not run forever.
  ScheduledRun run(ReadThenWriteClip({0, 0, 1, 0, 0}, {0, 0, 3, 2, 0}));
  Run(run, {kX, kX, kX, kX, kX, kX, kX, kX});
  REQUIRE(run.observer.stopped.has_value());
  CHECK(run.observer.stopped->cause == StopCause::kDivergence);
  CHECK(run.observer.stopped->reason ==
        "T1 diverged before step 4 of 5: it repeated its read at loc 10 more than the 2 times "
        "the recording did before its write at loc 0xb");
}

TEST_CASE("a recorded repeat is matched only by a repeat of the same step", "[replayer][repeats]") {
  ScheduledRun run(ReadThenWriteClip({0, 0, 1, 0, 0}, {}));
  SECTION("the same access again") {
    Run(run, {kX, kX});
    REQUIRE_FALSE(run.observer.stopped.has_value());
    CHECK(run.observer.finished);
  }
  SECTION("the same site on another address is not a repeat") {
    Run(run, {kX, kY});
    REQUIRE(run.observer.stopped.has_value());
    CHECK(run.observer.stopped->cause == StopCause::kDivergence);
    CHECK(run.observer.stopped->steps_executed == 2);
  }
  SECTION("without counts, no repeat runs without a step") {
    Run(run, {kX, kX, kX});
    REQUIRE(run.observer.stopped.has_value());
    CHECK(run.observer.stopped->cause == StopCause::kDivergence);
  }
}

TEST_CASE("clips older than 1.1 match repeats like any access", "[replayer][repeats]") {
  ScheduledRun run(MakeClip("0 1<0", "T0:fork@1 T1:read@10 T1:read@10 T1:write@11 T0:write@2"));
  Run(run, {kX, kY});  // a 1.0 clip cannot tell them apart: both match by site
  REQUIRE_FALSE(run.observer.stopped.has_value());
  CHECK(run.observer.finished);
}

TEST_CASE("clips with repeats that name another thread's step are refused",
          "[replayer][schedule]") {
  proto::Clip clip = ReadThenWriteClip({0, 0, 1, 0, 3}, {});
  CHECK_THROWS_WITH(ReplaySchedule::FromClip(clip),
                    Catch::Contains("step 4 repeats a step that is not the same thread's access"));
}

}  // namespace
}  // namespace pecan::replay::testing
