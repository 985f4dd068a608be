// SchedulePruner: what a thread keeps is a prefix of its steps, so each set is a per-thread
// count. Closing a prefix over POR takes one binary search per pair of threads (a thread's last
// kept event stands for its earlier ones). Nothing before the first moved step can be left out,
// so only the schedule from there on is read again, and locks are checked there against the
// holds that left-out releases leave open — no replay of the whole lock history.
#include "schedgen/schedule_pruner.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace pecan {
namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

class Pruning {
 public:
  Pruning(const Trace& trace, const PorIndex& por, const std::vector<EventIndex>& steps)
      : trace_(trace), por_(por), steps_(steps), threads_(por.ThreadCount()) {}

  std::optional<std::vector<EventIndex>> Run(const PatternOrder& pattern) {
    if (!CountSteps()) return std::nullopt;
    need_.assign(threads_, 0);
    for (EventIndex e : pattern.events) {
      const ThreadId t = trace_.thread[e];
      need_[t] = std::max<uint64_t>(need_[t], por_.LocalIndex(e) + 1);
    }
    for (int round = 0; round < SchedulePruner::kMaxLockRounds; ++round) {
      if (!CloseNeeded()) return std::nullopt;
      ComputeKept();
      if (kept_ == scheduled_) return std::nullopt;
      std::vector<EventIndex> kept;
      if (KeepWithLocksHeld(kept)) return kept;
    }
    return std::nullopt;
  }

 private:
  // A lock that a thread holds at its cut because the release was left out: it stays held for
  // the rest of the clip.
  struct OpenHold {
    ThreadId holder = 0;
    uint64_t release = 0;  // local index of the left-out release that would let go of it
    bool read_mode = false;
  };

  EventIndex EventOf(ThreadId t, uint64_t local) const { return por_.ThreadEvents(t)[local]; }

  // Per thread: how many of its events the schedule runs, and which of them are moved (run after
  // an event recorded later: `MovedSteps`). False when nothing is moved.
  bool CountSteps() {
    // The scheduler copies the recorded prefix as is; counting it is a binary search per thread.
    uint64_t identity = 0;
    while (identity < steps_.size() && steps_[identity] == identity) ++identity;
    scheduled_.assign(threads_, 0);
    for (ThreadId t = 0; t < threads_; ++t) {
      const auto& mine = por_.ThreadEvents(t);
      scheduled_[t] = static_cast<uint64_t>(std::lower_bound(mine.begin(), mine.end(), identity) -
                                            mine.begin());
    }
    moved_.assign(threads_, {});
    first_moved_ = kNone;
    EventIndex latest = identity > 0 ? identity - 1 : 0;
    for (uint64_t k = identity; k < steps_.size(); ++k) {
      const EventIndex e = steps_[k];
      const ThreadId t = trace_.thread[e];
      if (k > 0 && e < latest) {
        if (first_moved_ == kNone) {
          first_moved_ = k;
          done_at_first_moved_ = scheduled_;
        }
        moved_[t].push_back(scheduled_[t]);
      }
      latest = std::max(latest, e);
      ++scheduled_[t];
    }
    return first_moved_ != kNone;
  }

  // How many of u's first events are POR predecessors of e (they form a prefix); at least `from`.
  uint64_t PredecessorCount(ThreadId u, EventIndex e, uint64_t from) const {
    const auto& mine = por_.ThreadEvents(u);
    uint64_t lo = from;
    uint64_t hi =
        static_cast<uint64_t>(std::lower_bound(mine.begin(), mine.end(), e) - mine.begin());
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (por_.Ordered(mine[mid], e)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  // The first of u's events in [from, to) that is a POR successor of r (they form a suffix), or
  // `to` when there is none.
  uint64_t FirstSuccessor(ThreadId u, EventIndex r, uint64_t from, uint64_t to) const {
    const auto& mine = por_.ThreadEvents(u);
    uint64_t lo = std::max<uint64_t>(
        from, static_cast<uint64_t>(std::upper_bound(mine.begin(), mine.end(), r) - mine.begin()));
    uint64_t hi = to;
    if (lo >= hi) return to;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (por_.Ordered(r, mine[mid])) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  // Extends the needed prefixes by the POR predecessors of their last events until nothing
  // changes. False if a needed event is not in the schedule (the schedule was not feasible).
  bool CloseNeeded() {
    for (bool changed = true; changed;) {
      changed = false;
      for (ThreadId t = 0; t < threads_; ++t) {
        if (need_[t] == 0) continue;
        if (need_[t] > scheduled_[t]) return false;
        const EventIndex last = EventOf(t, need_[t] - 1);
        for (ThreadId u = 0; u < threads_; ++u) {
          if (u == t) continue;
          const uint64_t count = PredecessorCount(u, last, need_[u]);
          if (count > need_[u]) {
            need_[u] = count;
            changed = true;
          }
        }
      }
    }
    return true;
  }

  // Each thread keeps its steps up to its first moved step that is not needed; then whatever
  // depends on a left-out event by POR is left out too. Needed prefixes are closed backward, so
  // the cut never reaches into one.
  void ComputeKept() {
    kept_ = scheduled_;
    for (ThreadId t = 0; t < threads_; ++t) {
      const auto& moved = moved_[t];
      const auto first = std::lower_bound(moved.begin(), moved.end(), need_[t]);
      if (first != moved.end()) kept_[t] = *first;
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (ThreadId t = 0; t < threads_; ++t) {
        if (kept_[t] >= scheduled_[t]) continue;
        const EventIndex root = EventOf(t, kept_[t]);
        for (ThreadId u = 0; u < threads_; ++u) {
          if (u == t || kept_[u] <= need_[u]) continue;
          const uint64_t cut = FirstSuccessor(u, root, need_[u], kept_[u]);
          if (cut < kept_[u]) {
            kept_[u] = cut;
            changed = true;
          }
        }
      }
    }
  }

  // The locks each cut thread holds at its cut: those its left-out steps release more often than
  // they acquire. The release that lets go is where the running count first reaches its minimum.
  std::unordered_map<uint64_t, std::vector<OpenHold>> OpenHolds() const {
    struct Count {
      int64_t depth = 0;
      int64_t lowest = 0;
      uint64_t release = 0;
      bool read_mode = false;
    };
    std::unordered_map<uint64_t, std::vector<OpenHold>> open;
    std::unordered_map<uint64_t, Count> counts;
    for (ThreadId u = 0; u < threads_; ++u) {
      counts.clear();
      for (uint64_t k = kept_[u]; k < scheduled_[u]; ++k) {
        const EventIndex e = EventOf(u, k);
        const EventKind kind = trace_.kind[e];
        if (IsAcquire(kind)) {
          ++counts[trace_.addr[e]].depth;
        } else if (IsRelease(kind)) {
          Count& c = counts[trace_.addr[e]];
          if (--c.depth < c.lowest) {
            c.lowest = c.depth;
            c.release = k;
            c.read_mode = kind == EventKind::kReadUnlock;
          }
        }
      }
      for (const auto& [lock, c] : counts) {
        if (c.lowest < 0) open[lock].push_back(OpenHold{u, c.release, c.read_mode});
      }
    }
    return open;
  }

  // Collects the kept steps. A thread whose release was left out holds that lock for the rest of
  // the clip; if another thread's kept step then acquires it, the release is needed after all
  // (the validator's lock rule) and false is returned for another round. Every step before the
  // first moved one is kept and was feasible, so checking starts there.
  bool KeepWithLocksHeld(std::vector<EventIndex>& kept) {
    const auto open = OpenHolds();
    uint64_t total = 0;
    for (uint64_t n : kept_) total += n;
    kept.reserve(total);
    kept.assign(steps_.begin(), steps_.begin() + static_cast<long>(first_moved_));
    std::vector<uint64_t> done = done_at_first_moved_;
    bool repaired = false;
    for (uint64_t k = first_moved_; k < steps_.size(); ++k) {
      const EventIndex e = steps_[k];
      const ThreadId t = trace_.thread[e];
      if (done[t]++ >= kept_[t]) continue;
      kept.push_back(e);
      if (open.empty() || !IsAcquire(trace_.kind[e])) continue;
      auto it = open.find(trace_.addr[e]);
      if (it == open.end()) continue;
      const bool read_mode = trace_.kind[e] == EventKind::kReadLock;
      for (const OpenHold& hold : it->second) {
        // The holder still runs as recorded until its cut; past it, the lock stays with it.
        if (hold.holder == t || done[hold.holder] < kept_[hold.holder]) continue;
        if (read_mode && hold.read_mode) continue;
        need_[hold.holder] = std::max(need_[hold.holder], hold.release + 1);
        repaired = true;
      }
    }
    return !repaired;
  }

  const Trace& trace_;
  const PorIndex& por_;
  const std::vector<EventIndex>& steps_;
  const uint32_t threads_;
  std::vector<uint64_t> scheduled_;            // per thread: its steps in the schedule
  std::vector<std::vector<uint64_t>> moved_;   // per thread: local indices of its moved steps
  uint64_t first_moved_ = kNone;               // position of the first moved step
  std::vector<uint64_t> done_at_first_moved_;  // per thread: its steps before that position
  std::vector<uint64_t> need_;                 // per thread: the needed prefix
  std::vector<uint64_t> kept_;                 // per thread: the kept prefix (>= need_)
};

}  // namespace

SchedulePruner::SchedulePruner(const Trace& trace, const PorIndex& por)
    : trace_(trace), por_(por) {}

std::optional<std::vector<EventIndex>> SchedulePruner::Prune(const std::vector<EventIndex>& steps,
                                                             const PatternOrder& pattern) const {
  if (steps.empty() || pattern.events.empty()) return std::nullopt;
  return Pruning(trace_, por_, steps).Run(pattern);
}

}  // namespace pecan
