// Deferring what the anomaly does not need: events the schedule moved (and what depends on them)
// leave the clip and run after it, so they cannot repair the state before the anomaly's last
// event. The Jigsaw event queue (examples/jigsaw_event_queue.c) is the worked example.
#include <catch2/catch.hpp>

#include "analyzer/por_index.h"
#include "schedgen/pattern_scheduler.h"
#include "schedgen/schedule_generator.h"
#include "schedgen/schedule_pruner.h"
#include "std_trace.h"

namespace pecan {
namespace {

using test::StdTrace;
using Steps = std::vector<EventIndex>;

Finding Atomicity(std::vector<EventIndex> events) {
  Finding f;
  f.id = "atomicity-prune";
  f.pattern = "atomicity";
  f.variant = "R-W-R";
  f.events = std::move(events);
  return f;
}

// Jigsaw's event manager as recorded (locations are the example's line numbers): main (T0) adds
// event 0 and forks consumers A (T1) and B (T2); A checks the size, reads element 0, removes it
// and posts `consumed`; main waits for that and adds event 1; only then does B check the size,
// read element 0 and remove it. Every queue method holds the queue's lock q.
const char* kJigsaw =
    "T0|acq(q)|57\n"             // 0   queue_add(0)
    "T0|w(count)|60\n"           // 1
    "T0|rel(q)|61\n"             // 2
    "T0|fork(T1)|90\n"           // 3
    "T0|fork(T2)|91\n"           // 4
    "T1|acq(q)|34\n"             // 5   A: queue_size()
    "T1|r(count)|35\n"           // 6
    "T1|rel(q)|36\n"             // 7
    "T1|acq(q)|41\n"             // 8   A: queue_element_at(0)
    "T1|r(count)|42\n"           // 9
    "T1|rel(q)|44\n"             // 10
    "T1|acq(q)|49\n"             // 11  A: queue_remove_first()
    "T1|r(count)|50\n"           // 12
    "T1|w(count)|52\n"           // 13
    "T1|rel(q)|53\n"             // 14
    "T1|post(consumed)|75\n"     // 15
    "T0|semwait(consumed)|92\n"  // 16  main: sem_wait, then queue_add(1)
    "T0|acq(q)|57\n"             // 17
    "T0|r(count)|59\n"           // 18
    "T0|w(count)|60\n"           // 19
    "T0|rel(q)|61\n"             // 20
    "T2|acq(q)|34\n"             // 21  B: queue_size()
    "T2|r(count)|35\n"           // 22
    "T2|rel(q)|36\n"             // 23
    "T2|acq(q)|41\n"             // 24  B: queue_element_at(0)
    "T2|r(count)|42\n"           // 25
    "T2|rel(q)|44\n"             // 26
    "T2|acq(q)|49\n"             // 27  B: queue_remove_first()
    "T2|r(count)|50\n"           // 28
    "T2|w(count)|52\n"           // 29
    "T2|rel(q)|53\n"             // 30
    "T0|join(T1)|94\n"           // 31
    "T0|join(T2)|95\n";          // 32

TEST_CASE("Jigsaw: main's add, which waits for the moved removal, is left out of the clip",
          "[schedgen][prune]") {
  const Trace trace = StdTrace(kJigsaw);
  PorIndex por(trace);
  // B's size check (35), A's removal (52), B's index check (42): R-W-R on count.
  const Finding finding = Atomicity({22, 13, 25});

  // The schedule as built: A's removal block moves behind B's size check, and main's sem_wait
  // and queue_add(1), which depend on it through the semaphore, come along — they refill the
  // queue before B's index check, so the assertion at line 42 would pass.
  const SchedulerResult built = PatternScheduler(trace, por).Build(PatternOrderOf(finding));
  INFO(built.reason);
  REQUIRE(built.ok);
  CHECK(built.steps == Steps{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 21, 22,
                             23, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24, 25});
  CHECK(MovedSteps(built.steps) == std::vector<uint64_t>{14, 15, 16, 17, 18, 19, 20, 21, 22, 23});

  // The clip keeps A's removal through its unlock (B's next lock needs it) and leaves out A's
  // sem_post and all of main's second add: they run after the clip, once B's check has failed.
  ScheduleGenerator generator(trace, por);
  const ClipPlan plan = generator.Generate(finding);
  INFO(plan.reason);
  REQUIRE(plan.ok);
  CHECK(plan.steps == Steps{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 21, 22, 23, 11, 12, 13, 14, 24, 25});
  CHECK(plan.anomaly_steps == std::vector<uint64_t>{12, 16, 19});
  CHECK(plan.moved_steps == std::vector<uint64_t>{14, 15, 16, 17});
  CHECK(plan.deferred_steps == 6);
  CHECK(plan.generator == "atomicity+oml");
  // Nothing follows the anomaly's last event, and none of main's events after its forks is in.
  CHECK(plan.steps.back() == 25);
  for (EventIndex e = 15; e <= 20; ++e) {
    CHECK(std::find(plan.steps.begin(), plan.steps.end(), e) == plan.steps.end());
  }
}

TEST_CASE("pruning keeps events that were not moved and drops what depends on a dropped one",
          "[schedgen][prune]") {
  // R-W-R on x: T2 reads x (#10), T1's write (#4) must come in between, T2 reads x again (#14).
  // T1 posts s after its write; T0 waits for it, writes x back and releases k, which T4
  // acquires. T3's write of flag, recorded before T2's first read, is read by T2 (#13).
  const Trace trace = StdTrace(
      "T0|fork(T1)|1\n"    // 0
      "T0|fork(T2)|2\n"    // 1
      "T0|fork(T3)|3\n"    // 2
      "T0|fork(T4)|4\n"    // 3
      "T1|w(x)|10\n"       // 4  pattern 2/3
      "T1|post(s)|11\n"    // 5
      "T0|semwait(s)|5\n"  // 6
      "T0|w(x)|6\n"        // 7  would write x back before #14
      "T0|hbrel(k)|7\n"    // 8
      "T3|w(flag)|20\n"    // 9
      "T2|r(x)|30\n"       // 10 pattern 1/3
      "T4|hbacq(k)|40\n"   // 11
      "T4|w(y)|41\n"       // 12
      "T2|r(flag)|31\n"    // 13
      "T2|r(x)|32\n");     // 14 pattern 3/3
  PorIndex por(trace);
  const Finding finding = Atomicity({10, 4, 14});
  const SchedulerResult built = PatternScheduler(trace, por).Build(PatternOrderOf(finding));
  REQUIRE(built.ok);
  // T1's and T0's events are held back behind T2's first read; T4's are not moved (recorded
  // after it) but run only because T0's hbrel did.
  CHECK(built.steps == Steps{0, 1, 2, 3, 9, 10, 4, 5, 6, 7, 8, 11, 12, 13, 14});
  CHECK(MovedSteps(built.steps) == std::vector<uint64_t>{6, 7, 8, 9, 10});

  const ClipPlan plan = ScheduleGenerator(trace, por).Generate(finding);
  INFO(plan.reason);
  REQUIRE(plan.ok);
  // T1's post and T0's events after its forks are moved and not needed: out. T4's depend on
  // T0's hbrel: out. T3's write was not moved and carries the recorded data flow into T2's read
  // of flag: it stays. T0's forks stay too (T2's fork is needed; T3's and T4's were not moved).
  CHECK(plan.steps == Steps{0, 1, 2, 3, 9, 10, 4, 13, 14});
  CHECK(plan.moved_steps == std::vector<uint64_t>{6});
  CHECK(plan.deferred_steps == 6);
}

TEST_CASE("a moved event another thread's needed event waits for stays", "[schedgen][prune]") {
  // Jigsaw with one more semaphore: A posts `ready` after `consumed`, and B waits for it between
  // its size check and its read. A's posts are now needed (the second by B's wait, the first by
  // program order); main's sem_wait still is not, although it depends on A's first post.
  std::string text = kJigsaw;
  text.insert(text.find("T0|semwait"), "T1|post(ready)|76\n");       // 16
  text.insert(text.find("T2|acq(q)|41"), "T2|semwait(ready)|38\n");  // 25
  const Trace trace = StdTrace(text);
  PorIndex por(trace);
  const Finding finding = Atomicity({23, 13, 27});
  const ClipPlan plan = ScheduleGenerator(trace, por).Generate(finding);
  INFO(plan.reason);
  REQUIRE(plan.ok);
  CHECK(plan.steps ==
        Steps{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 22, 23, 24, 11, 12, 13, 14, 15, 16, 25, 26, 27});
  CHECK(plan.deferred_steps == 5);  // main's sem_wait and queue_add(1)
}

TEST_CASE("a schedule without moved steps is left alone", "[schedgen][prune]") {
  const Trace trace = StdTrace(
      "T0|fork(T1)|1\n"
      "T0|r(x)|2\n"
      "T1|w(x)|3\n"
      "T0|r(x)|4\n");
  PorIndex por(trace);
  SchedulePruner pruner(trace, por);
  CHECK_FALSE(pruner.Prune({0, 1, 2, 3}, PatternOrder{{1, 2, 3}, false}).has_value());
}

// A schedule in which every lock repair uncovers the next one: T1 runs critical sections on
// L1..Ln, each with a moved write inside (T2's later-recorded write runs in between), and T0,
// whose last event is the pattern, takes each lock after T1. Leaving out T1's first moved write
// leaves L1 held, so its release is needed; that exposes L2, and so on: n + 1 rounds.
struct LockChain {
  Trace trace;
  Steps schedule;
  EventIndex dropped = 0;  // T1's moved write after its last section: the only step to go
};

LockChain MakeLockChain(int links) {
  std::string text;
  Steps schedule;
  EventIndex next = 0;
  auto add = [&](const std::string& line) {
    text += line + "\n";
    return next++;
  };
  for (int i = 1; i <= links; ++i) {
    const std::string lock = "L" + std::to_string(i);
    const EventIndex acquire = add("T1|acq(" + lock + ")|1");
    const EventIndex write = add("T1|w(x)|2");
    const EventIndex release = add("T1|rel(" + lock + ")|3");
    const EventIndex other = add("T2|w(z)|4");
    const EventIndex t0_acquire = add("T0|acq(" + lock + ")|5");
    const EventIndex t0_release = add("T0|rel(" + lock + ")|6");
    schedule.insert(schedule.end(), {acquire, other, write, release, t0_acquire, t0_release});
  }
  const EventIndex tail = add("T1|w(y)|7");
  const EventIndex other = add("T2|w(z)|4");
  const EventIndex last = add("T0|r(y)|8");
  schedule.insert(schedule.end(), {other, tail, last});
  return LockChain{StdTrace(text), schedule, tail};
}

TEST_CASE("lock repairs past kMaxLockRounds keep the schedule unpruned", "[schedgen][prune]") {
  const int rounds = SchedulePruner::kMaxLockRounds;
  for (int links : {rounds - 1, rounds}) {
    INFO(links << " links");
    const LockChain chain = MakeLockChain(links);
    PorIndex por(chain.trace);
    const PatternOrder order{{chain.schedule.back()}, false};
    ScheduleValidator validator(chain.trace, por);
    REQUIRE(validator.Check(chain.schedule, order).ok);
    const auto pruned = SchedulePruner(chain.trace, por).Prune(chain.schedule, order);
    if (links + 1 <= rounds) {
      // Every section's release came back; only the write after the last section is left out.
      REQUIRE(pruned.has_value());
      Steps expected = chain.schedule;
      std::erase(expected, chain.dropped);
      CHECK(*pruned == expected);
      CHECK(validator.Check(*pruned, order).ok);
    } else {
      CHECK_FALSE(pruned.has_value());
    }
  }
}

}  // namespace
}  // namespace pecan
