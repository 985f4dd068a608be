// ScheduleGenerator: the finding's pattern order goes to the PatternScheduler; if that finds no
// schedule and the search recorded which events the pattern overtakes (PECAN Algorithm 2's v_x),
// a second attempt holds those back explicitly, as Algorithm 4 does. The SchedulePruner then
// leaves out the moved events the anomaly does not need. Every result is validated.
#include "schedgen/schedule_generator.h"

#include <algorithm>

namespace pecan {
namespace {

// PECAN's overtaken event x is passed by the first pattern event (in pattern order) that was
// recorded after x in another thread and is concurrent with it: hold x back behind that event.
std::vector<std::pair<EventIndex, EventIndex>> OvertakeOrder(const Finding& finding,
                                                             const Trace& trace,
                                                             const PorIndex& por) {
  std::vector<std::pair<EventIndex, EventIndex>> order;
  for (EventIndex x : finding.overtaken) {
    if (x >= trace.size_events()) continue;
    for (EventIndex e : finding.events) {
      if (e < trace.size_events() && e > x && trace.thread[e] != trace.thread[x] &&
          por.Concurrent(x, e)) {
        order.emplace_back(x, e);
        break;
      }
    }
  }
  return order;
}

std::string FamilyName(const Finding& finding) {
  if (finding.pattern == "race" || finding.pattern == "atomicity" || finding.pattern == "asv") {
    return finding.pattern;
  }
  return "pattern:" + finding.pattern;
}

}  // namespace

std::vector<uint64_t> MovedSteps(const std::vector<EventIndex>& steps) {
  std::vector<uint64_t> moved;
  EventIndex latest = 0;
  for (uint64_t k = 0; k < steps.size(); ++k) {
    if (k > 0 && steps[k] < latest) moved.push_back(k);
    latest = std::max(latest, steps[k]);
  }
  return moved;
}

ScheduleGenerator::ScheduleGenerator(const Trace& trace, const PorIndex& por)
    : trace_(trace),
      por_(por),
      scheduler_(trace, por),
      pruner_(trace, por),
      validator_(trace, por) {}

bool ScheduleGenerator::PruneAndValidate(const PatternOrder& order, std::vector<EventIndex>& steps,
                                         ClipPlan& plan) const {
  // Moved events the anomaly does not need would run before its last event and could undo it
  // (Jigsaw: the refilled queue); they run after the clip instead. Should the shorter schedule
  // break a rule, the full one is kept.
  if (auto pruned = pruner_.Prune(steps, order)) {
    if (validator_.Check(*pruned, order)) {
      plan.deferred_steps = steps.size() - pruned->size();
      steps = std::move(*pruned);
      return true;
    }
  }
  const ValidationResult valid = validator_.Check(steps, order);
  if (!valid)
    plan.reason = "the generated schedule breaks the model (a generator bug): " + valid.reason;
  return valid.ok;
}

ClipPlan ScheduleGenerator::Generate(const Finding& finding) const {
  if (finding.pattern == "deadlock") return GenerateDeadlock(finding);
  ClipPlan plan;
  const PatternOrder order = PatternOrderOf(finding);
  plan.generator = finding.observed ? "observed-" + FamilyName(finding) : FamilyName(finding);

  SchedulerResult built = scheduler_.Build(order);
  if (!built.ok && !finding.overtaken.empty()) {
    const auto extra = OvertakeOrder(finding, trace_, por_);
    if (!extra.empty()) {
      SchedulerResult second = scheduler_.Build(order, extra);
      if (second.ok) {
        built = std::move(second);
        plan.generator += "+overtaken";
      }
    }
  }
  if (!built.ok) {
    plan.reason = built.reason;
    return plan;
  }
  if (built.sections_moved > 0) plan.generator += "+oml";

  if (!PruneAndValidate(order, built.steps, plan)) return plan;

  // Pattern events are few: compare each step with them rather than hashing a million steps.
  plan.anomaly_steps.assign(finding.events.size(), 0);
  for (uint64_t k = 0; k < built.steps.size(); ++k) {
    for (size_t p = 0; p < finding.events.size(); ++p) {
      if (built.steps[k] == finding.events[p]) plan.anomaly_steps[p] = k;
    }
  }
  plan.moved_steps = MovedSteps(built.steps);
  plan.steps = std::move(built.steps);
  plan.ok = true;
  return plan;
}

}  // namespace pecan
