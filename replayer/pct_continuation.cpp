// PctContinuation: priorities, change points, and the highest-priority ready thread.
#include "replayer/pct_continuation.h"

#include <algorithm>

namespace pecan::replay {

PctContinuation::PctContinuation(SyncModel& model, uint64_t seed, uint32_t depth, uint64_t steps)
    : model_(model), draws_(seed), depth_(std::max<uint32_t>(depth, 1)) {
  const uint64_t k = std::max<uint64_t>(steps, 1);
  for (uint32_t i = 1; i < depth_; ++i) change_points_.push_back(1 + draws_.Next() % k);
  std::sort(change_points_.begin(), change_points_.end());
}

uint64_t PctContinuation::PriorityOf(LogicalThread thread) {
  auto known = priority_.find(thread);
  if (known != priority_.end()) return known->second;
  // Initial priorities lie above every changed one (1..d-1); distinct with the id as tie-break.
  const uint64_t priority = ((depth_ + (draws_.Next() >> 24)) << 20) | (thread & 0xfffff);
  priority_.emplace(thread, priority);
  return priority;
}

LogicalThread PctContinuation::Highest(LogicalThread self, LogicalThread exclude,
                                       const WaitingThreads& waiting) {
  LogicalThread best = self;
  uint64_t best_priority = self != kNoThread ? PriorityOf(self) : 0;
  waiting.ForEach([&](LogicalThread t, const EventView& e) {
    if (t == self || t == exclude || !model_.Ready(t, e)) return;
    const uint64_t priority = PriorityOf(t);
    if (best == kNoThread || priority > best_priority) {
      best = t;
      best_priority = priority;
    }
  });
  return best;
}

SchedulePolicy::Check PctContinuation::CheckEvent(LogicalThread thread, const EventView& event,
                                                  const WaitingThreads& waiting) {
  if (!model_.Ready(thread, event)) return SchedulePolicy::Check::kNotMine;
  if (BlocksWithoutTurn(event)) return SchedulePolicy::Check::kMineWithoutTurn;
  // A change point: the thread about to take the step drops below every initial priority.
  while (next_change_ < change_points_.size() && change_points_[next_change_] <= steps_ + 1) {
    PriorityOf(thread);
    priority_[thread] = depth_ - 1 - next_change_;
    ++next_change_;
  }
  LogicalThread best = Highest(thread, kNoThread, waiting);
  if (best == thread && thread == last_ && run_length_ >= kSpinSteps) {
    const LogicalThread other = Highest(kNoThread, thread, waiting);
    if (other != kNoThread) {
      priority_[thread] = 0;  // below every changed priority (1..d-1)
      best = other;
    }
  }
  return best == thread ? SchedulePolicy::Check::kMine : SchedulePolicy::Check::kNotMine;
}

void PctContinuation::Execute(LogicalThread thread, const EventView& event) {
  model_.Executed(thread, event);
  ++steps_;
  run_length_ = thread == last_ ? run_length_ + 1 : 1;
  last_ = thread;
}

LogicalThread PctContinuation::NextHolder(LogicalThread from, const WaitingThreads& waiting) {
  return Highest(kNoThread, from, waiting);
}

}  // namespace pecan::replay
