// ScheduleGenerator::GenerateDeadlock: a deadlock-hatching schedule. Each thread of the cycle
// runs up to the event before its request (holding its lock); no request runs in the clip.
#include <algorithm>

#include "schedgen/schedule_generator.h"

namespace pecan {

ClipPlan ScheduleGenerator::GenerateDeadlock(const Finding& finding) const {
  ClipPlan plan;
  plan.generator = "deadlock";
  if (finding.events.size() < 4 || finding.events.size() % 2 != 0) {
    plan.reason = "a deadlock finding lists, per thread, the lock it holds and its request";
    return plan;
  }
  // Where each thread of the cycle must stand: the event just before its request.
  std::vector<EventIndex> requests;
  std::vector<EventIndex> stands;
  for (size_t i = 1; i < finding.events.size(); i += 2) {
    const EventIndex request = finding.events[i];
    if (request >= trace_.size_events() || por_.LocalIndex(request) == 0) {
      plan.reason = DescribeStep(trace_, request) + " cannot be a request for a held lock";
      return plan;
    }
    requests.push_back(request);
    stands.push_back(por_.ThreadEvents(trace_.thread[request])[por_.LocalIndex(request) - 1]);
  }
  PatternOrder order;
  order.events = stands;
  std::sort(order.events.begin(), order.events.end());
  // No request may run before the last thread stands: the schedule ends there, so none runs.
  std::vector<std::pair<EventIndex, EventIndex>> hold_back;
  for (EventIndex request : requests) hold_back.emplace_back(request, order.events.back());

  SchedulerResult built = scheduler_.Build(order, hold_back);
  if (!built.ok) {
    plan.reason = "no schedule brings every thread of the cycle to its request: " + built.reason;
    return plan;
  }
  if (built.sections_moved > 0) plan.generator += "+oml";
  if (!PruneAndValidate(order, built.steps, plan)) return plan;
  // The state the clip must end in: every thread of the cycle at its request, none past it.
  for (EventIndex request : requests) {
    if (std::find(built.steps.begin(), built.steps.end(), request) != built.steps.end()) {
      plan.reason =
          "the schedule runs the request " + DescribeStep(trace_, request) + " (a generator bug)";
      return plan;
    }
  }
  plan.moved_steps = MovedSteps(built.steps);
  plan.steps = std::move(built.steps);
  plan.ok = true;
  return plan;
}

}  // namespace pecan
