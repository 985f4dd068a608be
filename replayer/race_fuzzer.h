// RaceFuzzer (Sen, PLDI 2008, Algorithms 1 and 2) as a continuation: a random scheduler that
// postpones a thread about to execute a statement of the racing pair until another thread is
// about to make a conflicting access to the same address there — a real race — then resolves it
// randomly.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "replayer/continuation.h"

namespace pecan::replay {

// A real race the scheduler brought about: two threads about to access the same bytes at the
// racing statements, one a write. `first` ran first, `second` right after it (or stays
// postponed, when the coin chose the thread that arrived last).
struct RealRace {
  LogicalThread first = kNoThread;
  EventView first_event;
  LogicalThread second = kNoThread;
  EventView second_event;
};

class RaceFuzzerContinuation final : public Continuation {
 public:
  // `racing_pcs`: the runtime PCs of the pair's statements (one when both are the same). Each
  // real race is passed to `on_race`, called by the turn holder.
  RaceFuzzerContinuation(SyncModel& model, uint64_t seed, std::vector<uint64_t> racing_pcs,
                         std::function<void(const RealRace&)> on_race);

  SchedulePolicy::Check CheckEvent(LogicalThread thread, const EventView& event,
                                   const WaitingThreads& waiting) override;
  void Execute(LogicalThread thread, const EventView& event) override;
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override;

  // The livelock monitor of the paper's section 4, which releases threads postponed "for a long
  // time" (a thread spinning on a flag a postponed one must set would otherwise run forever).
  // Long is counted in events, so runs stay functions of their seeds: every postponed thread is
  // released after kSpinSteps events in a row that only read (a spin-wait), and any thread
  // postponed for kMaxPostponedSteps events. A long computation that writes does not release
  // it: the race is then formed however many statements come first (the paper's Figure 2).
  static constexpr uint64_t kSpinSteps = 10'000;
  static constexpr uint64_t kMaxPostponedSteps = 2'000'000;

 private:
  struct Candidate {
    LogicalThread thread = kNoThread;
    EventView event;
  };
  // Algorithm 1's loop body for one scheduling decision among the ready threads (`holder`
  // included when it is not kNoThread): returns the thread that runs next, or kNoThread.
  LogicalThread Decide(LogicalThread holder, const EventView* holder_event,
                       const WaitingThreads& waiting, LogicalThread exclude);
  bool AtRacingStatement(const EventView& event) const;
  static bool Conflict(const EventView& a, const EventView& b);

  SyncModel& model_;
  SeededDraws draws_;
  std::vector<uint64_t> racing_pcs_;
  std::function<void(const RealRace&)> on_race_;
  std::unordered_map<LogicalThread, uint64_t> postponed_;  // thread -> step it was postponed at
  std::vector<LogicalThread> run_next_;  // released by a race's resolution, in order
  LogicalThread granted_ = kNoThread;    // the decision a hand-over carries to the next holder
  uint64_t steps_ = 0;
  uint64_t reads_in_a_row_ = 0;  // events since the last one that was not a read
};

}  // namespace pecan::replay
