// ContinuedClipPolicy: the clip's answers until it is done or left, the seeded tail's after.
#include "replayer/continued_clip_policy.h"

namespace pecan::replay {

ContinuedClipPolicy::ContinuedClipPolicy(ClipFollowPolicy& clip,
                                         const ContinuationSettings& continuation)
    : clip_(clip), tail_(MakeContinuation(model_, continuation)) {}

LogicalThread ContinuedClipPolicy::IdentifyThread(LogicalThread parent, uint32_t ordinal) {
  return clip_.IdentifyThread(parent, ordinal);
}

LogicalThread ContinuedClipPolicy::FirstHolder() {
  return clip_.FirstHolder();
}

SchedulePolicy::Check ContinuedClipPolicy::CheckEvent(LogicalThread thread, const EventView& event,
                                                      const WaitingThreads& waiting) {
  if (in_tail()) return TailCheck(thread, event, waiting);
  // A condition waiter registers while the clip runs too, so a notify the clip executes
  // releases it in the model as it did for real.
  if (event.kind == EventKind::kWait) model_.Ready(thread, event);
  const Check check = clip_.CheckEvent(thread, event, waiting);
  if (check != Check::kDiverged) return check;
  const std::string description = clip_.DescribeDivergence(thread, event);
  diverged_.store(true, std::memory_order_release);
  in_tail_.store(true, std::memory_order_release);
  if (on_divergence_) on_divergence_(description);
  return TailCheck(thread, event, waiting);
}

SchedulePolicy::Check ContinuedClipPolicy::TailCheck(LogicalThread thread, const EventView& event,
                                                     const WaitingThreads& waiting) {
  // A thread let into a lock with the turn has taken it for real by the time it reports the
  // LOCK: that event is the call's own, not a new choice (another thread chosen here would
  // find the lock free in the model and block on it for real).
  if (admitted_ == thread && !event.blocking) {
    admitted_ = kNoThread;
    return Check::kMine;
  }
  const Check check = tail_->CheckEvent(thread, event, waiting);
  if (check == Check::kMine && event.blocking) admitted_ = thread;
  return check;
}

SchedulePolicy::Progress ContinuedClipPolicy::Execute(LogicalThread thread,
                                                      const EventView& event) {
  if (in_tail()) {
    tail_->Execute(thread, event);
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
  return in_tail() ? tail_->NextHolder(from, waiting) : clip_.NextHolder(from, waiting);
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
  return in_tail() ? "" : clip_.DescribeNextStep();  // after the clip: whoever can run
}

std::string ContinuedClipPolicy::DescribeWait(LogicalThread thread, const EventView& event) const {
  return model_.DescribeWait(thread, event);
}

std::string ContinuedClipPolicy::ThreadName(LogicalThread thread) const {
  return clip_.ThreadName(thread);
}

}  // namespace pecan::replay
