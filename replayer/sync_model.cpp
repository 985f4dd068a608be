// SyncModel: lock ownership and condition-wait releases, from the events as they execute.
#include "replayer/sync_model.h"

#include <algorithm>
#include <cstdio>

#include "replayer/spin_guard.h"

namespace pecan::replay {
namespace {

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

bool SyncModel::Ready(LogicalThread thread, const EventView& event) {
  // Only a call that has not happened yet can be held back; once a lock is reported taken
  // (or a wait returned), it has.
  if (!event.blocking) return true;
  SpinGuard guard(lock_);
  switch (event.kind) {
    case EventKind::kLock: {
      auto lock = locks_.find(event.addr);
      return lock == locks_.end() ||
             ((lock->second.writer == kNoThread || lock->second.writer == thread) &&
              lock->second.readers == 0);
    }
    case EventKind::kReadLock: {
      auto lock = locks_.find(event.addr);
      return lock == locks_.end() || lock->second.writer == kNoThread ||
             lock->second.writer == thread;
    }
    case EventKind::kWait: {
      CondState& cond = conds_[event.addr];
      if (cond.released.count(thread) != 0) return true;
      auto [registered, inserted] = waits_on_.try_emplace(thread, event.addr);
      if (inserted) cond.waiting.push_back(thread);
      return false;
    }
    default:
      return true;
  }
}

void SyncModel::Executed(LogicalThread thread, const EventView& event) {
  if (IsAccess(event.kind)) return;
  SpinGuard guard(lock_);
  switch (event.kind) {
    case EventKind::kLock:
      locks_[event.addr].writer = thread;
      locks_[event.addr].writer_pc = event.pc;
      break;
    case EventKind::kReadLock:
      ++locks_[event.addr].readers;
      break;
    case EventKind::kUnlock: {
      auto lock = locks_.find(event.addr);
      if (lock != locks_.end() && lock->second.writer == thread) lock->second.writer = kNoThread;
      break;
    }
    case EventKind::kReadUnlock: {
      auto lock = locks_.find(event.addr);
      if (lock != locks_.end() && lock->second.readers > 0) --lock->second.readers;
      break;
    }
    case EventKind::kNotify:
    case EventKind::kNotifyAll: {
      auto cond = conds_.find(event.addr);
      if (cond == conds_.end()) break;
      auto& waiting = cond->second.waiting;
      const size_t wake =
          event.kind == EventKind::kNotify ? std::min<size_t>(1, waiting.size()) : waiting.size();
      for (size_t i = 0; i < wake; ++i) {
        cond->second.released.insert(waiting.front());
        waiting.pop_front();
      }
      break;
    }
    case EventKind::kBarrierArrive: {
      BarrierState& barrier = barriers_[event.addr];
      arrival_of_[thread] = barrier.arrivals++;
      barrier.parties = event.size;
      if (barrier.parties > 0 && barrier.arrivals % barrier.parties == 0)
        barrier.completer = thread;
      break;
    }
    case EventKind::kWait: {
      // The wait returned (released by a notify, or spuriously while a clip was followed).
      auto registered = waits_on_.find(thread);
      if (registered == waits_on_.end()) break;
      CondState& cond = conds_[registered->second];
      cond.released.erase(thread);
      cond.waiting.erase(std::remove(cond.waiting.begin(), cond.waiting.end(), thread),
                         cond.waiting.end());
      waits_on_.erase(registered);
      break;
    }
    default:
      break;
  }
}

bool SyncModel::BarrierReleased(LogicalThread thread, uint64_t barrier,
                                LogicalThread holder) const {
  SpinGuard guard(lock_);
  auto state = barriers_.find(barrier);
  auto arrival = arrival_of_.find(thread);
  if (state == barriers_.end() || arrival == arrival_of_.end() || state->second.parties == 0)
    return false;
  const uint64_t parties = state->second.parties;
  const uint64_t round = arrival->second / parties;
  const uint64_t complete_rounds = state->second.arrivals / parties;
  if (round >= complete_rounds) return false;
  // Once anyone arrived for a later round, the round's last arrival has entered the call (the
  // round had returned).
  return state->second.arrivals > (round + 1) * parties || state->second.completer != holder;
}

WaitTarget SyncModel::Target(LogicalThread thread, const EventView& event) const {
  WaitTarget target;
  if (!event.blocking) return target;
  SpinGuard guard(lock_);
  switch (event.kind) {
    case EventKind::kLock:
    case EventKind::kReadLock: {
      auto lock = locks_.find(event.addr);
      if (lock == locks_.end()) break;
      // Held by the thread itself: a recursive mutex taken again (never stuck there), or a
      // self-deadlock on a plain one, which a stuck report must name.
      const bool held_by_writer = lock->second.writer != kNoThread;
      const bool held_by_readers = event.kind == EventKind::kLock && lock->second.readers > 0;
      if (!held_by_writer && !held_by_readers) break;
      target.object = event.kind == EventKind::kLock ? WaitTarget::Object::kLock
                                                     : WaitTarget::Object::kReadLock;
      target.address = event.addr;
      if (held_by_writer) {
        target.holder = lock->second.writer;
        target.holder_pc = lock->second.writer_pc;
      }
      target.readers = lock->second.readers;
      break;
    }
    case EventKind::kWait: {
      auto cond = conds_.find(event.addr);
      if (cond != conds_.end() && cond->second.released.count(thread) != 0) break;
      target.object = WaitTarget::Object::kCondition;
      target.address = event.addr;
      break;
    }
    default:
      break;
  }
  return target;
}

std::string SyncModel::DescribeWait(LogicalThread thread, const EventView& event) const {
  const WaitTarget target = Target(thread, event);
  switch (target.object) {
    case WaitTarget::Object::kNone:
      return "";
    case WaitTarget::Object::kCondition:
      return "a notify of condition " + Hex(target.address);
    case WaitTarget::Object::kLock:
    case WaitTarget::Object::kReadLock:
      if (target.holder != kNoThread && target.holder != thread)
        return "lock " + Hex(target.address) + " held by T" + std::to_string(target.holder);
      // Its own lock (Ready lets a thread take its own lock again) waits only for readers.
      if (event.kind != EventKind::kLock || target.readers == 0) return "";
      return "lock " + Hex(target.address) + " held by " + std::to_string(target.readers) +
             " reader(s)";
  }
  return "";
}

}  // namespace pecan::replay
