// SeededTail: slices, seeded draws among ready threads, and calls that block without the turn.
#include "replayer/seeded_tail.h"

#include <vector>

namespace pecan::replay {
namespace {

// Joins and semaphore waits block until another thread acts, and hold nothing another thread
// needs meanwhile: the caller gives the turn up for the real call and asks for it again when
// it returns (its JOIN or SEM_WAIT event). A lock instead waits for the turn until it is free.
bool BlocksWithoutTurn(const EventView& event) {
  return event.blocking && (event.kind == EventKind::kJoin || event.kind == EventKind::kSemWait);
}

}  // namespace

SeededTail::SeededTail(SyncModel& model, uint64_t seed)
    : model_(model), state_(seed ^ 0x5eed7a11c0ffee00ULL) {}

uint64_t SeededTail::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint32_t SeededTail::DrawSlice() {
  return 1 + static_cast<uint32_t>(Next() % kMaxSlice);
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
  const LogicalThread next = ready.empty() ? thread : ready[Next() % ready.size()];
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
  return ready.empty() ? kNoThread : ready[Next() % ready.size()];
}

}  // namespace pecan::replay
