// Clips of races with a FREE (issue 19: a free is a write of its block): the generator moves
// the access to just before the free, or the free to just before an access recorded after it,
// and the validator accepts both clips.
#include <catch2/catch.hpp>

#include <algorithm>

#include "analyzer/analysis.h"
#include "analyzer/por_index.h"
#include "schedgen/schedule_generator.h"
#include "schedgen/schedule_validator.h"
#include "tests/analyzer/trace_builder.h"

namespace pecan {
namespace {

using testing::TraceBuilder;
using Steps = std::vector<EventIndex>;

constexpr uint64_t kBlock = 0x10000;

// The race between `access` and `free` Analyze predicts, and its clip.
ClipPlan FreeRaceClip(const Trace& trace, EventIndex access, EventIndex free) {
  AnalysisOptions options;
  options.patterns = "race";
  const AnalysisResult result = Analyze(trace, options);
  const Steps pair = access < free ? Steps{access, free} : Steps{free, access};
  for (const Finding& f : result.findings) {
    if (f.events != pair) continue;
    CHECK_FALSE(f.observed);  // another access to the block lies between them
    PorIndex por(trace);
    const ClipPlan plan = ScheduleGenerator(trace, por).Generate(f);
    INFO(plan.reason);
    REQUIRE(plan.ok);
    ScheduleValidator validator(trace, por);
    CHECK(validator.CheckFeasible(plan.steps).ok);
    return plan;
  }
  FAIL("no race between events " << access << " and " << free);
  return {};
}

}  // namespace

TEST_CASE("A read recorded before the free moves to just before it", "[schedgen][heap]") {
  TraceBuilder b;
  b.Add(0, EventKind::kAlloc, kBlock, 16, 0, 1);                         // 0
  b.Fork(0, 1);                                                          // 1
  b.Add(1, EventKind::kRead, kBlock + 8, 8, 0, 2);                       // 2: T1 reads the block
  b.Add(1, EventKind::kWrite, 0x500, 8, 0, 3);                           // 3: and goes on
  b.Add(0, EventKind::kRead, kBlock + 8, 8, 0, 4);                       // 4: T0 reads it too
  const EventIndex free = b.Add(0, EventKind::kFree, kBlock, 16, 0, 5);  // 5
  const ClipPlan plan = FreeRaceClip(b.trace(), 2, free);
  REQUIRE(plan.steps.size() >= 2);
  CHECK(Steps(plan.steps.end() - 2, plan.steps.end()) == Steps{2, free});
}

TEST_CASE("A free recorded before a read moves to just before the read", "[schedgen][heap]") {
  TraceBuilder b;
  b.Add(0, EventKind::kAlloc, kBlock, 16, 0, 1);                         // 0
  b.Fork(0, 1);                                                          // 1
  const EventIndex free = b.Add(0, EventKind::kFree, kBlock, 16, 0, 5);  // 2
  b.Add(0, EventKind::kRead, kBlock + 8, 8, 0, 4);  // 3: T0 uses the block after freeing it
  b.Add(1, EventKind::kWrite, 0x500, 8, 0, 3);      // 4
  b.Add(1, EventKind::kRead, kBlock + 8, 8, 0, 2);  // 5: T1 reads it
  const ClipPlan plan = FreeRaceClip(b.trace(), 5, free);
  REQUIRE(plan.steps.size() >= 2);
  CHECK(Steps(plan.steps.end() - 2, plan.steps.end()) == Steps{free, 5});
  // T0's read after its free depends on the free: it is not in the clip.
  CHECK(std::find(plan.steps.begin(), plan.steps.end(), 3) == plan.steps.end());
}

}  // namespace pecan
