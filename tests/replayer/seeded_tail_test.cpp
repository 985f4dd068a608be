// The seeded continuation of a replay: the sync model never lets the turn go to a thread whose
// lock is held or whose condition wait no notify released (a notify releases the oldest
// waiter, notify_all every one), and the tail's choices are a function of its seed.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "replayer/pct_continuation.h"
#include "replayer/seeded_tail.h"
#include "replayer/sync_model.h"

namespace pecan::replay {
namespace {

using K = EventKind;

EventView Blocking(K kind, uint64_t addr) {
  EventView event{kind, 0x10, addr, 0};
  event.blocking = true;
  return event;
}

EventView Done(K kind, uint64_t addr) {
  return EventView{kind, 0x20, addr, 0};
}

constexpr uint64_t kLockA = 0x1000;
constexpr uint64_t kCond = 0x2000;

// A fixed set of threads waiting at events.
class Waiting final : public WaitingThreads {
 public:
  std::map<LogicalThread, EventView> at;
  void ForEach(const std::function<void(LogicalThread, const EventView&)>& visit) const override {
    for (const auto& [thread, event] : at) visit(thread, event);
  }
};

}  // namespace

TEST_CASE("SyncModel: a held lock is not ready for another thread until its unlock",
          "[replayer][tail]") {
  SyncModel model;
  CHECK(model.Ready(1, Blocking(K::kLock, kLockA)));
  model.Executed(1, Done(K::kLock, kLockA));
  CHECK_FALSE(model.Ready(2, Blocking(K::kLock, kLockA)));
  CHECK_FALSE(model.Ready(2, Blocking(K::kReadLock, kLockA)));
  CHECK(model.DescribeWait(2, Blocking(K::kLock, kLockA)) == "lock 0x1000 held by T1");
  // A lock reported after it was taken has happened: never held back.
  CHECK(model.Ready(2, Done(K::kLock, kLockA)));
  model.Executed(1, Done(K::kUnlock, kLockA));
  CHECK(model.Ready(2, Blocking(K::kLock, kLockA)));
}

TEST_CASE("SyncModel: readers share a rwlock and keep a writer out", "[replayer][tail]") {
  SyncModel model;
  model.Executed(1, Done(K::kReadLock, kLockA));
  CHECK(model.Ready(2, Blocking(K::kReadLock, kLockA)));
  model.Executed(2, Done(K::kReadLock, kLockA));
  CHECK_FALSE(model.Ready(3, Blocking(K::kLock, kLockA)));
  model.Executed(1, Done(K::kReadUnlock, kLockA));
  CHECK_FALSE(model.Ready(3, Blocking(K::kLock, kLockA)));
  model.Executed(2, Done(K::kReadUnlock, kLockA));
  CHECK(model.Ready(3, Blocking(K::kLock, kLockA)));
}

TEST_CASE(
    "SyncModel: a notify releases the oldest waiter, notify_all every one; a notify "
    "before the wait is lost",
    "[replayer][tail]") {
  SyncModel model;
  model.Executed(3, Done(K::kNotify, kCond));  // nobody waits yet: lost
  CHECK_FALSE(model.Ready(1, Blocking(K::kWait, kCond)));
  CHECK_FALSE(model.Ready(2, Blocking(K::kWait, kCond)));
  CHECK(model.DescribeWait(1, Blocking(K::kWait, kCond)) == "a notify of condition 0x2000");
  model.Executed(3, Done(K::kNotify, kCond));
  CHECK(model.Ready(1, Blocking(K::kWait, kCond)));
  CHECK_FALSE(model.Ready(2, Blocking(K::kWait, kCond)));
  model.Executed(1, Done(K::kWait, kCond));  // returned: waits again from scratch
  CHECK_FALSE(model.Ready(1, Blocking(K::kWait, kCond)));
  model.Executed(3, Done(K::kNotifyAll, kCond));
  CHECK(model.Ready(1, Blocking(K::kWait, kCond)));
  CHECK(model.Ready(2, Blocking(K::kWait, kCond)));
}

TEST_CASE("SeededTail: only ready threads get the turn; joins go on without it",
          "[replayer][tail]") {
  SyncModel model;
  SeededTail tail(model, 7);
  model.Executed(1, Done(K::kLock, kLockA));
  Waiting waiting;
  waiting.at[0] = Blocking(K::kLock, kLockA);
  waiting.at[1] = Done(K::kWrite, 0x3000);
  waiting.at[2] = Blocking(K::kWait, kCond);
  CHECK(tail.CheckEvent(0, waiting.at[0], waiting) == SchedulePolicy::Check::kNotMine);
  for (int i = 0; i < 20; ++i) CHECK(tail.NextHolder(0, waiting) == 1);
  CHECK(tail.CheckEvent(1, Blocking(K::kJoin, 4), waiting) ==
        SchedulePolicy::Check::kMineWithoutTurn);
  // Nobody ready but the one handing over: the turn is left free.
  waiting.at.erase(1);
  CHECK(tail.NextHolder(1, waiting) == kNoThread);
}

TEST_CASE("SeededTail: the same seed makes the same choices, another seed others",
          "[replayer][tail]") {
  auto choices = [](uint64_t seed) {
    SyncModel model;
    SeededTail tail(model, seed);
    Waiting waiting;
    for (LogicalThread t = 0; t < 4; ++t) waiting.at[t] = Done(K::kWrite, 0x100 * (t + 1));
    std::string text;
    LogicalThread holder = 0;
    for (int step = 0; step < 200; ++step) {
      if (tail.CheckEvent(holder, waiting.at[holder], waiting) == SchedulePolicy::Check::kMine) {
        tail.Execute(holder, waiting.at[holder]);
      } else {
        holder = tail.NextHolder(holder, waiting);
      }
      text += std::to_string(holder);
    }
    return text;
  };
  CHECK(choices(1) == choices(1));
  CHECK(choices(2) == choices(2));
  CHECK(choices(1) != choices(2));
  // Every thread gets turns: the slices end.
  const std::string one = choices(1);
  for (char t : {'0', '1', '2', '3'}) CHECK(one.find(t) != std::string::npos);
}

TEST_CASE(
    "SyncModel: the target of a wait names the lock's holder and where it took it, and a "
    "thread's own lock (a self-deadlock)",
    "[replayer][tail]") {
  SyncModel model;
  model.Executed(1, EventView{K::kLock, 0x44, kLockA, 0});
  const WaitTarget other = model.Target(2, Blocking(K::kLock, kLockA));
  CHECK(other.object == WaitTarget::Object::kLock);
  CHECK(other.address == kLockA);
  CHECK(other.holder == 1);
  CHECK(other.holder_pc == 0x44);
  // Its holder taking it again: Ready lets it (a recursive mutex), Target names it.
  CHECK(model.Ready(1, Blocking(K::kLock, kLockA)));
  CHECK(model.DescribeWait(1, Blocking(K::kLock, kLockA)).empty());
  CHECK(model.Target(1, Blocking(K::kLock, kLockA)).holder == 1);
  // A free lock and a released wait have no target.
  model.Executed(1, Done(K::kUnlock, kLockA));
  CHECK(model.Target(2, Blocking(K::kLock, kLockA)).object == WaitTarget::Object::kNone);
  CHECK_FALSE(model.Ready(2, Blocking(K::kWait, kCond)));  // registers the waiter
  CHECK(model.Target(2, Blocking(K::kWait, kCond)).object == WaitTarget::Object::kCondition);
  model.Executed(3, Done(K::kNotify, kCond));
  CHECK(model.Target(2, Blocking(K::kWait, kCond)).object == WaitTarget::Object::kNone);
}

TEST_CASE(
    "SyncModel: a barrier round is released once every party arrived, except to the one "
    "that arrived last while it has not entered the real wait",
    "[replayer][tail]") {
  SyncModel model;
  constexpr uint64_t kBarrier = 0x3000;
  auto arrive = [&](LogicalThread thread) {
    model.Executed(thread, EventView{K::kBarrierArrive, 0x30, kBarrier, 3});
  };
  arrive(1);
  arrive(2);
  CHECK_FALSE(model.BarrierReleased(1, kBarrier, kNoThread));
  arrive(3);  // the round is complete; thread 3 arrived last
  CHECK(model.BarrierReleased(1, kBarrier, 2));
  CHECK(model.BarrierReleased(2, kBarrier, 1));
  // Asked by thread 3 on its way into the wait: nobody returns before it makes the call.
  CHECK_FALSE(model.BarrierReleased(1, kBarrier, 3));
  // Next round: 1 arrives again (so 3 made its call); the earlier round is released for anyone.
  arrive(1);
  CHECK_FALSE(model.BarrierReleased(1, kBarrier, kNoThread));
  CHECK(model.BarrierReleased(2, kBarrier, 3));
  CHECK_FALSE(model.BarrierReleased(4, kBarrier, kNoThread));  // never arrived
}

TEST_CASE(
    "PCT: the highest-priority ready thread runs; a change point lowers the running one; "
    "the same seed makes the same choices",
    "[replayer][tail][pct]") {
  auto choices = [](uint64_t seed) {
    SyncModel model;
    PctContinuation pct(model, seed, /*depth=*/3, /*steps=*/20);
    Waiting waiting;
    for (LogicalThread t : {0u, 1u, 2u}) waiting.at[t] = Done(K::kWrite, 0x100 + t);
    std::vector<LogicalThread> ran;
    LogicalThread holder = 0;
    for (int step = 0; step < 40; ++step) {
      const EventView event = waiting.at[holder];
      if (pct.CheckEvent(holder, event, waiting) == SchedulePolicy::Check::kMine) {
        pct.Execute(holder, event);
        ran.push_back(holder);
      } else {
        holder = pct.NextHolder(holder, waiting);
      }
    }
    return ran;
  };
  const std::vector<LogicalThread> first = choices(7);
  CHECK(first == choices(7));
  // Nothing blocks, so the running thread changes only at the two change points: at most two
  // switches, whatever the seed.
  size_t switches = 0;
  for (size_t i = 1; i < first.size(); ++i) switches += first[i] != first[i - 1];
  CHECK(switches <= 2);
  bool differs = false;
  for (uint64_t seed = 0; seed < 8 && !differs; ++seed) differs = choices(seed) != first;
  CHECK(differs);
}

TEST_CASE("PCT: a held lock keeps a higher-priority thread from running", "[replayer][tail][pct]") {
  SyncModel model;
  PctContinuation pct(model, 1, 1, 10);  // depth 1: no change points
  Waiting waiting;
  waiting.at[0] = Blocking(K::kLock, kLockA);
  waiting.at[1] = Blocking(K::kLock, kLockA);
  model.Executed(0, Done(K::kLock, kLockA));  // thread 0 holds the lock
  waiting.at[0] = Done(K::kUnlock, kLockA);
  // Whatever the priorities, thread 1 (waiting for the lock) is never chosen while 0 holds it.
  CHECK(pct.NextHolder(kNoThread, waiting) == 0);
  CHECK(pct.CheckEvent(1, waiting.at[1], waiting) == SchedulePolicy::Check::kNotMine);
}

}  // namespace pecan::replay
