// ContinuedClipPolicy: the clip's answers until it is done or left, the seeded tail's after.
#include "replayer/continued_clip_policy.h"

namespace pecan::replay {

ContinuedClipPolicy::ContinuedClipPolicy(ClipFollowPolicy& clip, uint64_t seed)
    : clip_(clip), tail_(model_, seed) {}

LogicalThread ContinuedClipPolicy::IdentifyThread(LogicalThread parent, uint32_t ordinal) {
  return clip_.IdentifyThread(parent, ordinal);
}

LogicalThread ContinuedClipPolicy::FirstHolder() {
  return clip_.FirstHolder();
}

SchedulePolicy::Check ContinuedClipPolicy::CheckEvent(LogicalThread thread, const EventView& event,
                                                      const WaitingThreads& waiting) {
  if (in_tail()) return tail_.CheckEvent(thread, event, waiting);
  // A condition waiter registers while the clip runs too, so a notify the clip executes
  // releases it in the model as it did for real.
  if (event.kind == EventKind::kWait) model_.Ready(thread, event);
  const Check check = clip_.CheckEvent(thread, event, waiting);
  if (check != Check::kDiverged) return check;
  const std::string description = clip_.DescribeDivergence(thread, event);
  diverged_.store(true, std::memory_order_release);
  in_tail_.store(true, std::memory_order_release);
  if (on_divergence_) on_divergence_(description);
  return tail_.CheckEvent(thread, event, waiting);
}

SchedulePolicy::Progress ContinuedClipPolicy::Execute(LogicalThread thread,
                                                      const EventView& event) {
  if (in_tail()) {
    tail_.Execute(thread, event);
    tail_steps_.fetch_add(1, std::memory_order_release);
    return {};
  }
  model_.Executed(thread, event);
  Progress progress = clip_.Execute(thread, event);
  if (progress.finished) {
    progress.finished = false;
    progress.continued = true;
    in_tail_.store(true, std::memory_order_release);
  }
  return progress;
}

LogicalThread ContinuedClipPolicy::NextHolder(LogicalThread from, const WaitingThreads& waiting) {
  return in_tail() ? tail_.NextHolder(from, waiting) : clip_.NextHolder(from, waiting);
}

bool ContinuedClipPolicy::OwnsNextStep(LogicalThread thread) const {
  return !in_tail() && clip_.OwnsNextStep(thread);
}

uint64_t ContinuedClipPolicy::StepsExecuted() const {
  return clip_.StepsExecuted() + tail_steps_.load(std::memory_order_acquire);
}

std::string ContinuedClipPolicy::DescribeDivergence(LogicalThread thread,
                                                    const EventView& event) const {
  return clip_.DescribeDivergence(thread, event);
}

std::string ContinuedClipPolicy::DescribeNextStep() const {
  return in_tail() ? "any ready thread (the seeded continuation)" : clip_.DescribeNextStep();
}

std::string ContinuedClipPolicy::DescribeWait(LogicalThread thread, const EventView& event) const {
  return model_.DescribeWait(thread, event);
}

std::string ContinuedClipPolicy::ThreadName(LogicalThread thread) const {
  return clip_.ThreadName(thread);
}

}  // namespace pecan::replay
