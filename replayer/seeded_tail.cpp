// SeededTail: slices, seeded draws among ready threads, and calls that block without the turn.
#include "replayer/seeded_tail.h"

#include <vector>

namespace pecan::replay {

SeededTail::SeededTail(SyncModel& model, uint64_t seed, bool slices)
    : model_(model), draws_(seed), slices_(slices) {}

uint32_t SeededTail::DrawSlice() {
  return slices_ ? 1 + static_cast<uint32_t>(draws_.Next() % kMaxSlice) : 1;
}

SchedulePolicy::Check SeededTail::CheckEvent(LogicalThread thread, const EventView& event,
                                             const WaitingThreads& waiting) {
  if (!model_.Ready(thread, event)) return SchedulePolicy::Check::kNotMine;
  if (BlocksWithoutTurn(event)) return SchedulePolicy::Check::kMineWithoutTurn;
  if (slice_left_ > 0) {
    --slice_left_;
    return SchedulePolicy::Check::kMine;
  }
  std::vector<LogicalThread> ready;
  waiting.ForEach([&](LogicalThread t, const EventView& e) {
    if (t == thread || model_.Ready(t, e)) ready.push_back(t);
  });
  const LogicalThread next = ready.empty() ? thread : ready[draws_.Next() % ready.size()];
  if (next == thread) {
    slice_left_ = DrawSlice() - 1;
    return SchedulePolicy::Check::kMine;
  }
  chosen_ = next;
  return SchedulePolicy::Check::kNotMine;
}

void SeededTail::Execute(LogicalThread thread, const EventView& event) {
  model_.Executed(thread, event);
}

LogicalThread SeededTail::NextHolder(LogicalThread from, const WaitingThreads& waiting) {
  std::vector<LogicalThread> ready;
  bool chosen_ready = false;
  waiting.ForEach([&](LogicalThread t, const EventView& e) {
    if (t == from || !model_.Ready(t, e)) return;
    ready.push_back(t);
    chosen_ready = chosen_ready || t == chosen_;
  });
  const LogicalThread chosen = chosen_;
  chosen_ = kNoThread;
  slice_left_ = DrawSlice() - 1;
  if (chosen_ready) return chosen;
  return ready.empty() ? kNoThread : ready[draws_.Next() % ready.size()];
}

}  // namespace pecan::replay
