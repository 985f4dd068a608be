// RaceFuzzerContinuation: postponing threads at the racing statements, detecting a real race
// among the postponed, resolving it by a coin, and releasing a random postponed thread when no
// other can run.
#include "replayer/race_fuzzer.h"

#include <algorithm>

namespace pecan::replay {

RaceFuzzerContinuation::RaceFuzzerContinuation(SyncModel& model, uint64_t seed,
                                               std::vector<uint64_t> racing_pcs,
                                               std::function<void(const RealRace&)> on_race)
    : model_(model),
      draws_(seed),
      racing_pcs_(std::move(racing_pcs)),
      on_race_(std::move(on_race)) {}

bool RaceFuzzerContinuation::AtRacingStatement(const EventView& event) const {
  return IsAccess(event.kind) &&
         std::find(racing_pcs_.begin(), racing_pcs_.end(), event.pc) != racing_pcs_.end();
}

bool RaceFuzzerContinuation::Conflict(const EventView& a, const EventView& b) {
  const uint64_t a_end = a.addr + std::max<uint32_t>(a.size, 1);
  const uint64_t b_end = b.addr + std::max<uint32_t>(b.size, 1);
  return a.addr < b_end && b.addr < a_end && (IsWriteAccess(a.kind) || IsWriteAccess(b.kind));
}

LogicalThread RaceFuzzerContinuation::Decide(LogicalThread holder, const EventView* holder_event,
                                             const WaitingThreads& waiting, LogicalThread exclude) {
  std::vector<Candidate> ready;
  if (holder != kNoThread) ready.push_back({holder, *holder_event});
  waiting.ForEach([&](LogicalThread t, const EventView& e) {
    if (t != holder && t != exclude && model_.Ready(t, e)) ready.push_back({t, e});
  });
  if (ready.empty()) return kNoThread;
  auto is_ready = [&](LogicalThread t) {
    return std::any_of(ready.begin(), ready.end(),
                       [&](const Candidate& c) { return c.thread == t; });
  };
  // The threads a race's resolution let go run first, in order (Algorithm 1, lines 15-18).
  while (!run_next_.empty()) {
    const LogicalThread next = run_next_.front();
    run_next_.erase(run_next_.begin());
    if (is_ready(next)) return next;
  }
  // The livelock monitor.
  if (reads_in_a_row_ >= kSpinSteps) {
    postponed_.clear();
    reads_in_a_row_ = 0;
  }
  std::erase_if(postponed_,
                [&](const auto& entry) { return steps_ - entry.second > kMaxPostponedSteps; });
  std::vector<Candidate> free;
  for (const Candidate& c : ready) {
    if (!postponed_.contains(c.thread)) free.push_back(c);
  }
  while (!free.empty()) {
    const size_t pick = draws_.Next() % free.size();
    const Candidate t = free[pick];
    free.erase(free.begin() + static_cast<std::ptrdiff_t>(pick));
    if (!AtRacingStatement(t.event)) return t.thread;
    // Racing(s, t, postponed): postponed threads about to access the same bytes, one a write.
    std::vector<Candidate> racing;
    for (const Candidate& p : ready) {
      if (postponed_.contains(p.thread) && AtRacingStatement(p.event) && Conflict(t.event, p.event))
        racing.push_back(p);
    }
    if (racing.empty()) {
      postponed_[t.thread] = steps_;  // wait for a race to happen
      continue;
    }
    // A real race, resolved at random: t goes first and the others stay postponed, or t is
    // postponed and the others go first.
    if (draws_.Next() & 1) {
      for (const Candidate& p : racing) on_race_({t.thread, t.event, p.thread, p.event});
      return t.thread;
    }
    postponed_[t.thread] = steps_;
    for (const Candidate& p : racing) {
      on_race_({p.thread, p.event, t.thread, t.event});
      postponed_.erase(p.thread);
      run_next_.push_back(p.thread);
    }
    const LogicalThread next = run_next_.front();
    run_next_.erase(run_next_.begin());
    return next;
  }
  // Every ready thread is postponed: release one at random (Algorithm 1, lines 26-27).
  std::vector<LogicalThread> held;
  for (const Candidate& c : ready) held.push_back(c.thread);
  const LogicalThread released = held[draws_.Next() % held.size()];
  postponed_.erase(released);
  return released;
}

SchedulePolicy::Check RaceFuzzerContinuation::CheckEvent(LogicalThread thread,
                                                         const EventView& event,
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

void RaceFuzzerContinuation::Execute(LogicalThread thread, const EventView& event) {
  model_.Executed(thread, event);
  ++steps_;
  const bool reads = event.kind == EventKind::kRead || event.kind == EventKind::kAtomicLoad;
  reads_in_a_row_ = reads ? reads_in_a_row_ + 1 : 0;
}

LogicalThread RaceFuzzerContinuation::NextHolder(LogicalThread from,
                                                 const WaitingThreads& waiting) {
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
