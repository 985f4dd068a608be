// DrFinder (Cai & Cao, ESEC/FSE 2015, Algorithms 2 and 3) as a continuation: a random scheduler
// that, when a thread is about to acquire a lock of a class another thread's current functions
// may trigger (may-trigger relations of an earlier run), postpones the acquisition and escorts
// that other thread until it acquires a lock of the class, reversing the lock's happens-before
// edge so races it hid can be observed.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "replayer/continuation.h"

namespace pecan::replay {

// The may-trigger relations as runtime addresses: function and lock-class ids.
struct MayTriggerMap {
  std::unordered_map<uint64_t, uint32_t> function_at_entry;  // FUNC_ENTRY pc -> function
  std::unordered_map<uint64_t, uint32_t> class_of_global;    // static lock address -> class
  std::unordered_map<uint64_t, uint32_t> class_of_alloc;     // allocation call pc -> class
  std::set<std::pair<uint32_t, uint32_t>> relations;         // (function, class)
  uint32_t depth = 3;  // how many of a thread's innermost functions may trigger
};

class DrFinderContinuation final : public Continuation {
 public:
  DrFinderContinuation(SyncModel& model, uint64_t seed, MayTriggerMap map);

  SchedulePolicy::Check CheckEvent(LogicalThread thread, const EventView& event,
                                   const WaitingThreads& waiting) override;
  void Execute(LogicalThread thread, const EventView& event) override;
  LogicalThread NextHolder(LogicalThread from, const WaitingThreads& waiting) override;

  // An escort that has not acquired a lock of the class within this many events is given up
  // (the paper's thrashing case): the postponed threads go on.
  static constexpr uint64_t kMaxEscortSteps = 100'000;
  static constexpr uint32_t kNoClass = UINT32_MAX;

 private:
  struct Candidate {
    LogicalThread thread = kNoThread;
    EventView event;
  };
  LogicalThread Decide(LogicalThread holder, const EventView* holder_event,
                       const WaitingThreads& waiting, LogicalThread exclude);
  uint32_t ClassOf(uint64_t lock) const;
  bool MayTrigger(LogicalThread thread, uint32_t lock_class) const;
  void EndEscort();

  SyncModel& model_;
  SeededDraws draws_;
  MayTriggerMap map_;
  std::unordered_map<LogicalThread, std::vector<uint32_t>> stacks_;  // function ids, innermost last
  std::map<uint64_t, std::pair<uint64_t, uint32_t>> heap_;           // block base -> (end, class)
  std::unordered_map<LogicalThread, uint32_t> postponed_;            // thread -> class it waits for
  LogicalThread escort_ = kNoThread;
  uint32_t escort_class_ = kNoClass;
  uint64_t escort_since_ = 0;
  LogicalThread granted_ = kNoThread;
  uint64_t steps_ = 0;
};

}  // namespace pecan::replay
