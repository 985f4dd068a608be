// RecordedRunPlan: a prefix of the recorded order, validated.
#include "schedgen/recorded_run.h"

#include <algorithm>

#include "schedgen/schedule_validator.h"

namespace pecan {

ClipPlan RecordedRunPlan(const Trace& trace, const PorIndex& por, uint64_t steps) {
  ClipPlan plan;
  plan.generator = "recorded";
  if (trace.size_events() == 0) {
    plan.reason = "the trace has no events";
    return plan;
  }
  // A prefix of the recorded order is itself feasible; a replay goes on after it under its
  // seeded schedule.
  plan.steps.resize(steps != 0 ? std::min<uint64_t>(steps, trace.size_events())
                               : trace.size_events());
  for (size_t i = 0; i < plan.steps.size(); ++i) plan.steps[i] = static_cast<EventIndex>(i);
  if (const ValidationResult valid = ScheduleValidator(trace, por).CheckFeasible(plan.steps);
      !valid) {
    plan.steps.clear();
    plan.reason = "the recorded order fails the schedule check, so no clip was written: " + valid.reason;
    return plan;
  }
  plan.ok = true;
  return plan;
}

}  // namespace pecan
