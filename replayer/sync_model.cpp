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

std::string SyncModel::DescribeWait(LogicalThread thread, const EventView& event) const {
  if (!event.blocking) return "";
  SpinGuard guard(lock_);
  switch (event.kind) {
    case EventKind::kLock:
    case EventKind::kReadLock: {
      auto lock = locks_.find(event.addr);
      if (lock == locks_.end()) return "";
      if (lock->second.writer != kNoThread && lock->second.writer != thread)
        return "lock " + Hex(event.addr) + " held by T" + std::to_string(lock->second.writer);
      if (event.kind == EventKind::kLock && lock->second.readers > 0)
        return "lock " + Hex(event.addr) + " held by " + std::to_string(lock->second.readers) +
               " reader(s)";
      return "";
    }
    case EventKind::kWait: {
      auto cond = conds_.find(event.addr);
      if (cond != conds_.end() && cond->second.released.count(thread) != 0) return "";
      return "a notify of condition " + Hex(event.addr);
    }
    default:
      return "";
  }
}

}  // namespace pecan::replay
