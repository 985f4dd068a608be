// ScheduleGenerator: for one finding, the bug-hatching schedule (PECAN section 6), checked by the
// ScheduleValidator before anyone sees it — or the reason there is no feasible one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/finding.h"
#include "analyzer/por_index.h"
#include "schedgen/pattern_scheduler.h"
#include "schedgen/schedule_pruner.h"
#include "schedgen/schedule_validator.h"
#include "trace_format/trace.h"

namespace pecan {

struct ClipPlan {
  bool ok = false;
  std::string reason;                   // when !ok: why there is no feasible clip
  std::vector<EventIndex> steps;        // the schedule, ending with the anomaly's last event
  std::vector<uint64_t> anomaly_steps;  // positions of the finding's events, pattern order
  std::vector<uint64_t> moved_steps;    // positions of steps that overtook a later-recorded one
  std::string generator;                // e.g. "race", "atomicity+oml", "observed"
  // Steps left out to run after the clip: moved events the anomaly does not need and what
  // depends on them (SchedulePruner).
  uint64_t deferred_steps = 0;
};

class ScheduleGenerator {
 public:
  // Keeps references; trace and index must outlive the generator. One generator serves every
  // finding of the trace.
  ScheduleGenerator(const Trace& trace, const PorIndex& por);

  // A deadlock finding (pattern "deadlock": per thread of the cycle, the acquisition of the lock
  // it holds, then its request for the next) gets a schedule that brings every thread of the
  // cycle to stand just before its request, each holding its lock (deadlock_plan.cpp); the
  // replay's tail then makes the requests and the threads block. Other findings: PECAN's
  // schedule showing the pattern.
  ClipPlan Generate(const Finding& finding) const;

 private:
  ClipPlan GenerateDeadlock(const Finding& finding) const;
  // Leaves out the moved steps `order` does not need (SchedulePruner), keeping the full schedule
  // should the pruned one break a rule, and validates the result; false (with plan.reason set)
  // when it breaks the model. Sets plan.deferred_steps.
  bool PruneAndValidate(const PatternOrder& order, std::vector<EventIndex>& steps,
                        ClipPlan& plan) const;

  const Trace& trace_;
  const PorIndex& por_;
  PatternScheduler scheduler_;
  SchedulePruner pruner_;
  ScheduleValidator validator_;
};

// Positions of the moved steps: those with an earlier step that was recorded after them (they
// were held back past it). The rest keep the recorded order among themselves.
std::vector<uint64_t> MovedSteps(const std::vector<EventIndex>& steps);

}  // namespace pecan
