// The seeded continuation of a replay: the sync model never lets the turn go to a thread whose
// lock is held or whose condition wait no notify released (a notify releases the oldest
// waiter, notify_all every one), and the tail's choices are a function of its seed.
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

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

}  // namespace pecan::replay
