// StepRepeatDistances: which steps of a schedule repeat an earlier access of their thread within
// one epoch (no other event of that thread in between), as replay must know to follow clips of
// traces recorded with repeats left out.
#include <catch2/catch.hpp>
#include <random>

#include "analyzer/lockset_table.h"
#include "schedgen/clip_builder.h"
#include "schedgen/schedule_generator.h"
#include "schedgen/step_repeats.h"
#include "std_trace.h"

namespace pecan {
namespace {

using test::StdTrace;

std::vector<EventIndex> AllEvents(const Trace& trace) {
  std::vector<EventIndex> steps(trace.size_events());
  for (EventIndex e = 0; e < steps.size(); ++e) steps[e] = e;
  return steps;
}

TEST_CASE("a repeat names the first access of its epoch, however far back", "[schedgen][repeats]") {
  const Trace trace = StdTrace(
      "T0|r(x)|1\n"    // 0: first
      "T0|r(x)|1\n"    // 1: repeats 0
      "T1|w(x)|9\n"    // 2: another thread: no effect on T0's epoch
      "T0|w(x)|2\n"    // 3: other kind and site: first
      "T0|r(x)|1\n"    // 4: repeats 0
      "T0|r(y)|1\n"    // 5: same site, other address: first
      "T0|acq(l)|3\n"  // 6: ends T0's epoch
      "T0|r(x)|1\n"    // 7: first again
      "T0|r(x)|1\n"    // 8: repeats 7
      "T1|w(x)|9\n"    // 9: repeats 2 (T1's epoch never ended)
      "T0|rel(l)|4\n"  // 10
      "T0|r(x)|1\n");  // 11: first
  CHECK(StepRepeatDistances(trace, AllEvents(trace)) ==
        std::vector<uint64_t>{0, 1, 0, 0, 4, 0, 0, 0, 1, 7, 0, 0});
}

TEST_CASE("distances count steps of the schedule, not trace positions", "[schedgen][repeats]") {
  const Trace trace = StdTrace(
      "T0|r(x)|1\n"
      "T1|w(z)|5\n"
      "T0|r(x)|1\n");
  // A schedule that runs T1 first: T0's repeat is the step right after its first access.
  CHECK(StepRepeatDistances(trace, {1, 0, 2}) == std::vector<uint64_t>{0, 0, 1});
}

TEST_CASE("function entry and exit end an epoch too", "[schedgen][repeats]") {
  const Trace trace = StdTrace(
      "T0|r(x)|1\n"
      "T0|enter(f)|2\n"
      "T0|r(x)|1\n"
      "T0|r(x)|1\n"
      "T0|exit(f)|3\n"
      "T0|r(x)|1\n");
  CHECK(StepRepeatDistances(trace, AllEvents(trace)) == std::vector<uint64_t>{0, 0, 0, 1, 0, 0});
}

}  // namespace
}  // namespace pecan

namespace pecan {
namespace {

// The definition, spelled out: scan back through the thread's own earlier steps.
std::vector<uint64_t> ReferenceDistances(const Trace& trace, const std::vector<EventIndex>& steps) {
  std::vector<uint64_t> distance(steps.size(), 0);
  for (uint64_t s = 0; s < steps.size(); ++s) {
    const EventIndex e = steps[s];
    if (!IsPlainAccess(trace.kind[e])) continue;
    for (uint64_t back = s; back-- > 0;) {
      const EventIndex b = steps[back];
      if (trace.thread[b] != trace.thread[e]) continue;
      if (!IsPlainAccess(trace.kind[b])) break;  // the epoch began after b
      if (trace.kind[b] == trace.kind[e] && trace.addr[b] == trace.addr[e] &&
          trace.size[b] == trace.size[e] && trace.site[b] == trace.site[e]) {
        distance[s] = s - back;  // the earliest match wins: keep scanning
      }
    }
  }
  return distance;
}

TEST_CASE("repeat distances agree with the definition on random schedules",
          "[schedgen][repeats][property]") {
  std::mt19937_64 rng(20261124);
  for (int round = 0; round < 200; ++round) {
    Trace trace;
    const uint32_t threads = 1 + rng() % 4;
    for (uint32_t t = 0; t < threads; ++t) trace.threads.push_back(ThreadInfo{});
    for (SiteId s = 0; s < 8; ++s) trace.sites.push_back(SiteInfo{kNoModule, s});
    // Long epochs over up to 300 addresses (the per-thread tables must grow and keep their
    // entries), sometimes ended by a lock or function event.
    const uint64_t addresses = 1 + rng() % 300;
    const int end_epoch_per_mille = static_cast<int>(rng() % 50);
    const uint64_t events = 200 + rng() % 2000;
    for (uint64_t i = 0; i < events; ++i) {
      Event e;
      e.thread = static_cast<ThreadId>(rng() % threads);
      if (static_cast<int>(rng() % 1000) < end_epoch_per_mille) {
        e.kind = rng() % 2 ? EventKind::kLock : EventKind::kFuncEntry;
        e.addr = 0x9000;
      } else {
        e.kind = rng() % 3 ? EventKind::kRead : EventKind::kWrite;
        e.addr = 0x1000 + 8 * (rng() % addresses);
        e.size = rng() % 8 ? 8 : 4;
      }
      e.site = static_cast<SiteId>(rng() % 3);
      trace.push_back(e);
    }
    const std::vector<EventIndex> steps = AllEvents(trace);
    INFO("round " << round);
    REQUIRE(StepRepeatDistances(trace, steps) == ReferenceDistances(trace, steps));
  }
}

TEST_CASE("clips carry which steps are repeats and the repeats left out before each",
          "[schedgen][repeats][clip]") {
  Trace trace = test::StdTrace(
      "T0|r(x)|1\n"
      "T0|r(x)|1\n"
      "T1|w(x)|2\n");
  // As recorded with repeats left out: 3 more reads of x before event 1, 2 before event 2.
  trace.repeats_before = {0, 3, 2};
  const LocksetTable locksets(trace);
  Finding finding;
  finding.id = "race-test";
  finding.pattern = "race";
  finding.adjacent = true;
  finding.events = {1, 2};
  ClipPlan plan;
  plan.ok = true;
  plan.steps = {0, 1, 2};
  plan.anomaly_steps = {1, 2};
  plan.generator = "observed";
  const proto::Clip clip = ClipFromPlan(trace, locksets, finding, plan, "");
  CHECK(std::vector<uint64_t>(clip.step_repeat_of().begin(), clip.step_repeat_of().end()) ==
        std::vector<uint64_t>{0, 1, 0});
  CHECK(std::vector<uint32_t>(clip.step_repeats_before().begin(),
                              clip.step_repeats_before().end()) == std::vector<uint32_t>{0, 3, 2});

  SECTION("a trace without left-out repeats gives no counts at all") {
    trace.repeats_before.clear();
    const proto::Clip plain = ClipFromPlan(trace, locksets, finding, plan, "");
    CHECK(plain.step_repeats_before_size() == 0);
    CHECK(plain.step_repeat_of_size() == 3);
  }
}

}  // namespace
}  // namespace pecan
