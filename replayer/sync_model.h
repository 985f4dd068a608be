// What a scheduler that picks threads itself must know to never hand the turn to a thread whose
// next event cannot happen: which locks are held, by whom, and which condition waiters a notify
// has released. Fed the events in the order they execute; read by seeded policies.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "replayer/scheduler_types.h"

namespace pecan::replay {

class SyncModel {
 public:
  // Whether `thread` can execute `event` now (the event has not taken effect yet). False for a
  // lock another thread holds (the real call would block the turn holder) and for a condition
  // wait no notify has released yet. A thread's first look at its condition wait registers it
  // as a waiter, which a later notify can release.
  bool Ready(LogicalThread thread, const EventView& event);
  // The lock `thread` waits for, or the condition it waits on ("" when ready), for messages.
  std::string DescribeWait(LogicalThread thread, const EventView& event) const;
  // The same as data: the lock and its holder, or the condition (Object::kNone when free).
  // Unlike Ready and DescribeWait, a lock the thread holds itself counts as held (by it).
  WaitTarget Target(LogicalThread thread, const EventView& event) const;
  // Whether `thread`, in a wait at `barrier`, is released: every party of its round arrived,
  // and the one that arrived last is not `holder` (which passes the turn on its way into the
  // real call: until it makes the call, nobody returns).
  bool BarrierReleased(LogicalThread thread, uint64_t barrier, LogicalThread holder) const;
  // `thread` executes `event` now.
  void Executed(LogicalThread thread, const EventView& event);

 private:
  struct LockState {
    LogicalThread writer = kNoThread;
    uint64_t writer_pc = 0;  // where the writer took it
    uint32_t readers = 0;
  };
  struct CondState {
    std::deque<LogicalThread> waiting;           // in the order they began to wait
    std::unordered_set<LogicalThread> released;  // woken by a notify, not yet returned
  };

  // The turn holder updates the model; the watchdog reads it to describe a stuck run.
  mutable std::atomic_flag lock_ = ATOMIC_FLAG_INIT;
  std::unordered_map<uint64_t, LockState> locks_;
  std::unordered_map<uint64_t, CondState> conds_;
  std::unordered_map<LogicalThread, uint64_t> waits_on_;  // registered waiters' conditions
  struct BarrierState {
    uint64_t arrivals = 0;  // every BARRIER_ARRIVE so far
    uint32_t parties = 0;
    LogicalThread completer = kNoThread;  // the last arrival of the latest complete round
  };
  std::unordered_map<uint64_t, BarrierState> barriers_;
  std::unordered_map<LogicalThread, uint64_t> arrival_of_;  // a thread's last arrival number
};

}  // namespace pecan::replay
