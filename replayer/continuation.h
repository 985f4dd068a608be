// How a replay goes on after its clip (or a divergence): the threads stay serialized and a
// strategy picks who runs next among those ready (SyncModel). One strategy per file: SeededTail
// (seeded random choices, in slices or at every event), PctContinuation (PCT's priorities),
// RaceFuzzerContinuation (races brought about at a racing pair of statements),
// DrFinderContinuation (lock orders reversed where a may-trigger relation predicts them).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "replayer/schedule_policy.h"
#include "replayer/sync_model.h"

namespace pecan::replay {

struct RealRace;
struct MayTriggerMap;

class Continuation {
 public:
  virtual ~Continuation() = default;
  // SchedulePolicy's questions, asked only once the continuation has begun (by the turn holder).
  virtual SchedulePolicy::Check CheckEvent(LogicalThread thread, const EventView& event,
                                           const WaitingThreads& waiting) = 0;
  virtual void Execute(LogicalThread thread, const EventView& event) = 0;
  // kNoThread when no waiting thread is ready: the turn is free for the next thread that
  // reaches an event, and if every thread waits the watchdog reports a deadlock.
  virtual LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) = 0;
};

// The strategies' shared settings (pecan replay --strategy/--seed/--depth/--steps).
struct ContinuationSettings {
  enum class Strategy : uint8_t { kSeeded, kRandom, kPct, kRaceFuzzer, kDrFinder };
  Strategy strategy = Strategy::kSeeded;
  uint64_t seed = 0;
  uint32_t pct_depth = 3;     // PCT's d: d-1 priority change points
  uint64_t pct_steps = 1000;  // PCT's k: the run length the change points are drawn over
  // RaceFuzzer: the runtime PCs of the racing pair's statements (from the clip's finding), and
  // where the real races it brings about go.
  std::vector<uint64_t> racing_pcs;
  std::function<void(const RealRace&)> on_race;
  // DrFinder: the may-trigger relations of an earlier run, located in this process.
  std::shared_ptr<const MayTriggerMap> may_trigger;
};

std::unique_ptr<Continuation> MakeContinuation(SyncModel& model,
                                               const ContinuationSettings& settings);

// Joins and semaphore waits block until another thread acts, and hold nothing another thread
// needs meanwhile: the caller gives the turn up for the real call and asks for it again when
// it returns (its JOIN or SEM_WAIT event). A lock instead waits for the turn until it is free.
inline bool BlocksWithoutTurn(const EventView& event) {
  return event.blocking && (event.kind == EventKind::kJoin || event.kind == EventKind::kSemWait);
}

// splitmix64: the strategies' seeded source of choices.
class SeededDraws {
 public:
  explicit SeededDraws(uint64_t seed) : state_(seed ^ 0x5eed7a11c0ffee00ULL) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

}  // namespace pecan::replay
