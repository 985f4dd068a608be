// The recorder's trace invariants, each one linear pass over the trace.
#include "trace_checks.h"

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace pecan::rt_test {
namespace {

std::string At(const Trace& trace, size_t i) {
  std::ostringstream out;
  Event e = trace.event(i);
  out << "event " << i << " (T" << e.thread << " " << EventKindName(e.kind) << " 0x" << std::hex
      << e.addr << std::dec << ")";
  return out.str();
}

}  // namespace

Violations CheckThreadStructure(const Trace& trace) {
  Violations found;
  const size_t threads = trace.threads.size();
  std::vector<std::optional<size_t>> first(threads), last(threads), fork_at(threads);
  std::vector<uint32_t> forks_by(threads, 0);
  for (size_t i = 0; i < trace.size_events(); ++i) {
    ThreadId t = trace.thread[i];
    if (t >= threads) {
      found.push_back(At(trace, i) + ": thread id outside the thread table");
      continue;
    }
    if (!first[t]) {
      first[t] = i;
      if (trace.kind[i] != EventKind::kThreadBegin) {
        found.push_back(At(trace, i) + ": first event of the thread is not THREAD_BEGIN");
      }
      if (trace.threads[t].parent && !fork_at[t]) {
        found.push_back(At(trace, i) + ": thread starts before its FORK");
      }
    }
    if (last[t] && trace.kind[*last[t]] == EventKind::kThreadEnd) {
      found.push_back(At(trace, i) + ": event after the thread's THREAD_END");
    }
    last[t] = i;
    if (trace.kind[i] == EventKind::kFork) {
      uint64_t child = trace.addr[i];
      if (child >= threads) {
        found.push_back(At(trace, i) + ": FORK of an unknown thread");
        continue;
      }
      if (fork_at[child]) found.push_back(At(trace, i) + ": second FORK of the same thread");
      fork_at[child] = i;
      const ThreadInfo& info = trace.threads[child];
      if (!info.parent || *info.parent != t || info.ordinal != forks_by[t]) {
        found.push_back(At(trace, i) + ": FORK does not match the child's creation path");
      }
      ++forks_by[t];
    }
    if (trace.kind[i] == EventKind::kJoin) {
      uint64_t child = trace.addr[i];
      if (child >= threads || !last[child] || trace.kind[*last[child]] != EventKind::kThreadEnd) {
        found.push_back(At(trace, i) + ": JOIN before the child's THREAD_END");
      }
    }
  }
  return found;
}

Violations CheckLockDiscipline(const Trace& trace) {
  struct LockState {
    std::optional<ThreadId> writer;
    std::multiset<ThreadId> readers;
  };
  Violations found;
  std::unordered_map<uint64_t, LockState> locks;
  for (size_t i = 0; i < trace.size_events(); ++i) {
    EventKind kind = trace.kind[i];
    if (kind != EventKind::kLock && kind != EventKind::kUnlock && kind != EventKind::kReadLock &&
        kind != EventKind::kReadUnlock) {
      continue;
    }
    LockState& lock = locks[trace.addr[i]];
    ThreadId t = trace.thread[i];
    switch (kind) {
      case EventKind::kLock:
        if (lock.writer || !lock.readers.empty()) {
          found.push_back(At(trace, i) + ": acquired while held");
        }
        lock.writer = t;
        break;
      case EventKind::kReadLock:
        if (lock.writer) found.push_back(At(trace, i) + ": read-acquired while write-held");
        lock.readers.insert(t);
        break;
      case EventKind::kUnlock:
        if (lock.writer != t) found.push_back(At(trace, i) + ": released by a non-holder");
        lock.writer.reset();
        break;
      default: {
        auto reader = lock.readers.find(t);
        if (reader == lock.readers.end()) {
          found.push_back(At(trace, i) + ": read-released by a non-reader");
        } else {
          lock.readers.erase(reader);
        }
      }
    }
  }
  return found;
}

Violations CheckFunctionNesting(const Trace& trace) {
  Violations found;
  std::unordered_map<ThreadId, long> depth;
  for (size_t i = 0; i < trace.size_events(); ++i) {
    ThreadId t = trace.thread[i];
    if (trace.kind[i] == EventKind::kFuncEntry) ++depth[t];
    if (trace.kind[i] == EventKind::kFuncExit && --depth[t] < 0) {
      found.push_back(At(trace, i) + ": FUNC_EXIT without FUNC_ENTRY");
      depth[t] = 0;
    }
    if (trace.kind[i] == EventKind::kThreadEnd && depth[t] != 0 && trace.threads[t].parent) {
      found.push_back(At(trace, i) + ": thread ends inside " + std::to_string(depth[t]) +
                      " function(s)");
    }
  }
  return found;
}

Violations CheckWaitNotify(const Trace& trace) {
  // A NOTIFY is stamped before its signal, so the signal may wake a waiter whose wait began
  // after the stamp: a woken WAIT is matched to any earlier NOTIFY_ALL, or to an earlier NOTIFY
  // no other WAIT took (a signal wakes one waiter at most).
  struct Notifies {
    std::vector<size_t> untaken;  // NOTIFYs no WAIT was matched to yet
    bool broadcast = false;       // a NOTIFY_ALL came
  };
  Violations found;
  std::unordered_map<uint64_t, Notifies> notifies;    // per condition variable
  std::unordered_map<ThreadId, size_t> pending_wait;  // WAIT that must be followed by LOCK
  for (size_t i = 0; i < trace.size_events(); ++i) {
    ThreadId t = trace.thread[i];
    EventKind kind = trace.kind[i];
    if (auto pending = pending_wait.find(t); pending != pending_wait.end()) {
      if (kind != EventKind::kLock) found.push_back(At(trace, i) + ": WAIT not followed by LOCK");
      pending_wait.erase(pending);
    }
    if (kind == EventKind::kNotify) notifies[trace.addr[i]].untaken.push_back(i);
    if (kind == EventKind::kNotifyAll) notifies[trace.addr[i]].broadcast = true;
    if (kind == EventKind::kWait) {
      pending_wait[t] = i;
      if (trace.flags[i] & kWaitTimedOutFlag) continue;
      Notifies& on = notifies[trace.addr[i]];
      if (on.broadcast) continue;
      if (on.untaken.empty()) {
        found.push_back(At(trace, i) + ": WAIT with no NOTIFY left to wake it");
        continue;
      }
      on.untaken.pop_back();
    }
  }
  return found;
}

Violations CheckSemaphores(const Trace& trace) {
  Violations found;
  std::unordered_map<uint64_t, long> available;
  for (size_t i = 0; i < trace.size_events(); ++i) {
    if (trace.kind[i] == EventKind::kSemPost) ++available[trace.addr[i]];
    if (trace.kind[i] == EventKind::kSemWait && --available[trace.addr[i]] < 0) {
      found.push_back(At(trace, i) + ": SEM_WAIT without an earlier SEM_POST");
    }
  }
  return found;
}

Violations CheckBarriers(const Trace& trace) {
  Violations found;
  std::map<uint64_t, uint64_t> arrivals;                         // per barrier
  std::map<std::pair<uint64_t, ThreadId>, uint64_t> generation;  // of a thread's last arrival
  for (size_t i = 0; i < trace.size_events(); ++i) {
    uint64_t barrier = trace.addr[i];
    uint64_t size = trace.size[i];
    if (trace.kind[i] == EventKind::kBarrierArrive) {
      if (size == 0) {
        found.push_back(At(trace, i) + ": barrier arrival without a participant count");
        continue;
      }
      generation[{barrier, trace.thread[i]}] = arrivals[barrier]++ / size;
    }
    if (trace.kind[i] == EventKind::kBarrierDepart && size != 0) {
      uint64_t g = generation[{barrier, trace.thread[i]}];
      if (arrivals[barrier] < (g + 1) * size) {
        found.push_back(At(trace, i) + ": departs before its generation has all arrived");
      }
    }
  }
  return found;
}

Violations CheckAllocations(const Trace& trace) {
  Violations found;
  std::map<uint64_t, uint64_t> live;  // begin -> end
  for (size_t i = 0; i < trace.size_events(); ++i) {
    uint64_t begin = trace.addr[i];
    uint64_t end = begin + std::max<uint64_t>(trace.size[i], 1);
    if (trace.kind[i] == EventKind::kAlloc) {
      auto next = live.lower_bound(begin);
      bool overlaps = (next != live.end() && next->first < end) ||
                      (next != live.begin() && std::prev(next)->second > begin);
      if (overlaps) found.push_back(At(trace, i) + ": ALLOC overlaps a live block");
      live[begin] = end;
    }
    if (trace.kind[i] == EventKind::kFree) {
      // Everything inside the freed range is gone (a thread's stack frees many blocks at once).
      for (auto it = live.lower_bound(begin); it != live.end() && it->first < end;)
        it = live.erase(it);
    }
  }
  return found;
}

Violations CheckAll(const Trace& trace) {
  Violations all;
  for (auto check : {CheckThreadStructure, CheckLockDiscipline, CheckFunctionNesting,
                     CheckWaitNotify, CheckSemaphores, CheckBarriers, CheckAllocations}) {
    Violations found = check(trace);
    all.insert(all.end(), found.begin(), found.end());
  }
  return all;
}

size_t CountEvents(const Trace& trace, EventKind kind, uint64_t addr) {
  size_t count = 0;
  for (size_t i = 0; i < trace.size_events(); ++i)
    count += trace.kind[i] == kind && trace.addr[i] == addr;
  return count;
}

size_t CountEventsInRange(const Trace& trace, EventKind kind, uint64_t begin, uint64_t end) {
  size_t count = 0;
  for (size_t i = 0; i < trace.size_events(); ++i) {
    count += trace.kind[i] == kind && trace.addr[i] >= begin && trace.addr[i] < end;
  }
  return count;
}

std::vector<size_t> EventsOf(const Trace& trace, EventKind kind, uint64_t addr) {
  std::vector<size_t> indices;
  for (size_t i = 0; i < trace.size_events(); ++i) {
    if (trace.kind[i] == kind && trace.addr[i] == addr) indices.push_back(i);
  }
  return indices;
}

std::string Describe(const Violations& violations) {
  std::ostringstream out;
  size_t shown = 0;
  for (const std::string& v : violations) {
    if (++shown > 20) {
      out << "... and " << violations.size() - 20 << " more\n";
      break;
    }
    out << v << "\n";
  }
  return out.str();
}

}  // namespace pecan::rt_test
