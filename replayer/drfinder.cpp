// DrFinderContinuation: call stacks and heap blocks from the run's events, lock classes, the
// may-trigger check, escorts, and the release of postponed threads when nothing else can run.
#include "replayer/drfinder.h"

#include <algorithm>

namespace pecan::replay {

DrFinderContinuation::DrFinderContinuation(SyncModel& model, uint64_t seed, MayTriggerMap map)
    : model_(model), draws_(seed), map_(std::move(map)) {}

uint32_t DrFinderContinuation::ClassOf(uint64_t lock) const {
  if (auto global = map_.class_of_global.find(lock); global != map_.class_of_global.end())
    return global->second;
  auto block = heap_.upper_bound(lock);
  if (block == heap_.begin()) return kNoClass;
  --block;
  return lock < block->second.first ? block->second.second : kNoClass;
}

bool DrFinderContinuation::MayTrigger(LogicalThread thread, uint32_t lock_class) const {
  auto stack = stacks_.find(thread);
  if (stack == stacks_.end()) return false;
  const std::vector<uint32_t>& frames = stack->second;
  const size_t innermost = std::min<size_t>(frames.size(), map_.depth);
  for (size_t i = 0; i < innermost; ++i) {
    if (map_.relations.contains({frames[frames.size() - 1 - i], lock_class})) return true;
  }
  return false;
}

void DrFinderContinuation::EndEscort() {
  const uint32_t done = escort_class_;
  std::erase_if(postponed_, [&](const auto& entry) { return entry.second == done; });
  escort_ = kNoThread;
  escort_class_ = kNoClass;
}

LogicalThread DrFinderContinuation::Decide(LogicalThread holder, const EventView* holder_event,
                                           const WaitingThreads& waiting, LogicalThread exclude) {
  std::vector<Candidate> ready;
  if (holder != kNoThread) ready.push_back({holder, *holder_event});
  waiting.ForEach([&](LogicalThread t, const EventView& e) {
    if (t != holder && t != exclude && model_.Ready(t, e)) ready.push_back({t, e});
  });
  if (ready.empty()) return kNoThread;
  if (escort_ != kNoThread && steps_ - escort_since_ > kMaxEscortSteps) EndEscort();
  // The escorted thread runs whenever it can, until it takes a lock of the class.
  if (escort_ != kNoThread && !postponed_.contains(escort_) &&
      std::any_of(ready.begin(), ready.end(),
                  [&](const Candidate& c) { return c.thread == escort_; }))
    return escort_;
  std::vector<Candidate> free;
  for (const Candidate& c : ready) {
    if (!postponed_.contains(c.thread)) free.push_back(c);
  }
  while (!free.empty()) {
    const size_t pick = draws_.Next() % free.size();
    const Candidate t = free[pick];
    free.erase(free.begin() + static_cast<std::ptrdiff_t>(pick));
    if (!IsAcquire(t.event.kind) || t.thread == escort_) return t.thread;
    const uint32_t lock_class = ClassOf(t.event.addr);
    if (lock_class == kNoClass) return t.thread;
    if (escort_ != kNoThread) {
      // Another escort is under way: a lock of its class waits for it too.
      if (lock_class != escort_class_) return t.thread;
      postponed_[t.thread] = lock_class;
      continue;
    }
    // Threads that can run and whose current functions may trigger a lock of this class.
    std::vector<LogicalThread> triggers;
    for (const Candidate& other : ready) {
      if (other.thread != t.thread && !postponed_.contains(other.thread) &&
          MayTrigger(other.thread, lock_class))
        triggers.push_back(other.thread);
    }
    if (triggers.empty()) return t.thread;
    postponed_[t.thread] = lock_class;
    escort_ = triggers[draws_.Next() % triggers.size()];
    escort_class_ = lock_class;
    escort_since_ = steps_;
    return escort_;
  }
  // Thrashing: every thread that can run is postponed. Give the escort up and let one go.
  const LogicalThread released = ready[draws_.Next() % ready.size()].thread;
  postponed_.erase(released);
  if (escort_ != kNoThread) EndEscort();
  return released;
}

SchedulePolicy::Check DrFinderContinuation::CheckEvent(LogicalThread thread, const EventView& event,
                                                       const WaitingThreads& waiting) {
  if (!model_.Ready(thread, event)) return SchedulePolicy::Check::kNotMine;
  if (BlocksWithoutTurn(event)) return SchedulePolicy::Check::kMineWithoutTurn;
  if (granted_ == thread) {
    granted_ = kNoThread;
    return SchedulePolicy::Check::kMine;
  }
  const LogicalThread next = Decide(thread, &event, waiting, kNoThread);
  if (next == thread || next == kNoThread) return SchedulePolicy::Check::kMine;
  granted_ = next;
  return SchedulePolicy::Check::kNotMine;
}

void DrFinderContinuation::Execute(LogicalThread thread, const EventView& event) {
  model_.Executed(thread, event);
  ++steps_;
  switch (event.kind) {
    case EventKind::kFuncEntry: {
      auto function = map_.function_at_entry.find(event.pc);
      stacks_[thread].push_back(function == map_.function_at_entry.end() ? kNoClass
                                                                         : function->second);
      break;
    }
    case EventKind::kFuncExit:
      if (auto stack = stacks_.find(thread); stack != stacks_.end() && !stack->second.empty())
        stack->second.pop_back();
      break;
    case EventKind::kThreadEnd:
      stacks_.erase(thread);
      break;
    case EventKind::kAlloc:
      if (auto site = map_.class_of_alloc.find(event.pc); site != map_.class_of_alloc.end())
        heap_[event.addr] = {event.addr + std::max<uint32_t>(event.size, 1), site->second};
      break;
    case EventKind::kFree:
      heap_.erase(event.addr);
      break;
    default:
      if (IsAcquire(event.kind) && thread == escort_ && ClassOf(event.addr) == escort_class_)
        EndEscort();
      break;
  }
}

LogicalThread DrFinderContinuation::NextHolder(LogicalThread from, const WaitingThreads& waiting) {
  if (granted_ != kNoThread && granted_ != from) {
    bool ready = false;
    waiting.ForEach([&](LogicalThread t, const EventView& e) {
      ready = ready || (t == granted_ && model_.Ready(t, e));
    });
    if (ready) return granted_;
  }
  granted_ = Decide(kNoThread, nullptr, waiting, from);
  return granted_;
}

}  // namespace pecan::replay
