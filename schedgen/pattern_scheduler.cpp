// PatternScheduler: a list scheduler over the recorded order. Threads wait in a min-heap keyed by
// the trace index of their next event; a thread that cannot run is parked with the reason
// (blocker) and woken only when that reason may have gone away, so the common case — the
// recorded order itself — costs a heap operation per event.
#include "schedgen/pattern_scheduler.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <queue>
#include <unordered_map>

namespace pecan {
namespace {

constexpr ThreadId kNoThread = ~ThreadId{0};

std::string Hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

// Which threads hold which locks, with every (recursive) acquisition still open, innermost last.
// Entries are reused rather than freed: replaying a million lock events must not allocate.
class LockBook {
 public:
  struct Hold {
    ThreadId thread = 0;
    bool read_mode = false;
    std::vector<EventIndex> acquisitions;  // empty: a free slot
  };

  // The holder that keeps `thread` from taking this acquisition now, if any.
  const Hold* Conflict(ThreadId thread, uint64_t lock, bool read_mode) const {
    auto it = holds_.find(lock);
    if (it == holds_.end()) return nullptr;
    for (const Hold& h : it->second) {
      if (!h.acquisitions.empty() && h.thread != thread && !(read_mode && h.read_mode)) return &h;
    }
    return nullptr;
  }

  bool Holds(ThreadId thread, uint64_t lock) const {
    auto it = holds_.find(lock);
    if (it == holds_.end()) return false;
    for (const Hold& h : it->second) {
      if (!h.acquisitions.empty() && h.thread == thread) return true;
    }
    return false;
  }

  // Applies a lock event (acquisition or release; others are ignored).
  void Apply(const Trace& trace, EventIndex e) {
    const EventKind kind = trace.kind[e];
    const ThreadId t = trace.thread[e];
    if (IsAcquire(kind)) {
      std::vector<Hold>& holders = holds_[trace.addr[e]];
      Hold* free_slot = nullptr;
      for (Hold& h : holders) {
        if (h.acquisitions.empty()) {
          free_slot = &h;
        } else if (h.thread == t) {
          h.acquisitions.push_back(e);
          return;
        }
      }
      if (!free_slot) free_slot = &holders.emplace_back();
      free_slot->thread = t;
      free_slot->read_mode = kind == EventKind::kReadLock;
      free_slot->acquisitions.push_back(e);
    } else if (IsRelease(kind)) {
      if (Hold* h = Find(t, trace.addr[e])) h->acquisitions.pop_back();
    }
  }

  // Forgets an acquisition that is taken back out of the schedule, if it is still held.
  void Forget(const Trace& trace, EventIndex acquisition) {
    Hold* h = Find(trace.thread[acquisition], trace.addr[acquisition]);
    if (!h) return;
    auto it = std::find(h->acquisitions.begin(), h->acquisitions.end(), acquisition);
    if (it != h->acquisitions.end()) h->acquisitions.erase(it);
  }

 private:
  Hold* Find(ThreadId thread, uint64_t lock) {
    auto it = holds_.find(lock);
    if (it == holds_.end()) return nullptr;
    for (Hold& h : it->second) {
      if (!h.acquisitions.empty() && h.thread == thread) return &h;
    }
    return nullptr;
  }

  std::unordered_map<uint64_t, std::vector<Hold>> holds_;
};

enum class ThreadState : uint8_t { kRunnable, kWaiting, kDormant, kFinished };

// Why a parked thread cannot run its next event yet.
enum class BlockKind : uint8_t {
  kThreadAdvance,  // a POR predecessor in thread `what` has not run (or, for the race's first
                   // access, the second access's thread has not reached it)
  kLockRelease,    // lock `what` is held by another thread
  kEvent,          // event `what` must run first (pattern order or a moved section)
  kBeyondHorizon,  // recorded after the pattern's last event and not needed (yet)
};

struct Blocker {
  BlockKind kind = BlockKind::kEvent;
  uint64_t what = 0;
};

class Run {
 public:
  Run(const Trace& trace, const PorIndex& por, const PatternOrder& pattern,
      const std::vector<std::pair<EventIndex, EventIndex>>& extra_order)
      : trace_(trace), por_(por), pattern_(pattern), extra_order_(extra_order) {}

  SchedulerResult Execute() {
    if (auto why = Precheck()) return Fail(*why);
    Start();
    while (!Emitted(pattern_.events.back())) {
      if (heap_.empty()) {
        if (TryMoveSection()) continue;
        if (!later_events_free_ && !dormant_count_zero()) {
          later_events_free_ = true;
          result_.used_later_events = true;
          for (ThreadId t = 0; t < thread_count_; ++t) {
            if (state_[t] == ThreadState::kDormant) Wake(t);
          }
          continue;
        }
        return Fail(DescribeStuck());
      }
      const auto [index, t] = heap_.top();
      heap_.pop();
      if (state_[t] != ThreadState::kRunnable || !HasNext(t) || Next(t) != index) continue;
      Evaluate(t);
    }
    result_.ok = true;
    result_.steps = std::move(steps_);
    return std::move(result_);
  }

 private:
  using HeapEntry = std::pair<EventIndex, ThreadId>;

  SchedulerResult Fail(std::string reason) {
    result_.ok = false;
    result_.reason = std::move(reason);
    result_.steps.clear();
    return std::move(result_);
  }

  std::optional<std::string> Precheck() {
    const auto& events = pattern_.events;
    if (events.empty()) return "the finding has no events";
    for (EventIndex e : events) {
      if (e >= trace_.size_events()) return "event " + std::to_string(e) + " is not in the trace";
    }
    for (size_t q = 0; q < events.size(); ++q) {
      for (size_t p = 0; p < q; ++p) {
        if (events[p] == events[q]) {
          return "the pattern names " + DescribeStep(trace_, events[p]) + " twice";
        }
        if (por_.Ordered(events[q], events[p])) {
          return DescribeStep(trace_, events[q]) + " must run before " +
                 DescribeStep(trace_, events[p]) +
                 " (program order or POR), but the pattern puts it after";
        }
      }
    }
    if (pattern_.adjacent) {
      if (events.size() < 2) return "an adjacent pattern needs at least two events";
      // The paired step below emits two events back to back; longer runs are not built.
      if (events.size() > 2) {
        return "adjacency of more than two events is not supported by the schedule generator";
      }
      if (trace_.thread[events[0]] == trace_.thread[events[1]]) {
        return "adjacency of two events of one thread is not supported by the schedule "
               "generator";
      }
      if (IsAcquire(trace_.kind[events[0]]) || IsRelease(trace_.kind[events[0]])) {
        return "adjacency is only supported when the first event is not a lock operation";
      }
      if (por_.Ordered(events[0], events[1])) {
        return DescribeStep(trace_, events[0]) + " is ordered before " +
               DescribeStep(trace_, events[1]) + " by POR, so they can never be adjacent";
      }
    }
    return std::nullopt;
  }

  void Start() {
    thread_count_ = por_.ThreadCount();
    events_of_.resize(thread_count_);
    for (ThreadId t = 0; t < thread_count_; ++t) events_of_[t] = &por_.ThreadEvents(t);
    const auto& events = pattern_.events;
    horizon_ = *std::max_element(events.begin(), events.end());
    const EventIndex start = *std::min_element(events.begin(), events.end());
    for (size_t p = 1; p < events.size(); ++p) {
      if (p == 1 && pattern_.adjacent) continue;  // handled by the paired step
      gates_[events[p]].push_back(events[p - 1]);
    }
    for (const auto& [event, after] : extra_order_) gates_[event].push_back(after);

    // Everything before the first pattern event runs as recorded. The schedule rarely grows
    // past the horizon; reserving that much spares copying millions of steps while it grows.
    steps_.reserve(horizon_ + 1);
    for (EventIndex i = 0; i < start; ++i) steps_.push_back(i);
    for (EventIndex i = 0; i < start; ++i) {
      if (IsAcquire(trace_.kind[i]) || IsRelease(trace_.kind[i])) locks_.Apply(trace_, i);
    }
    ptr_.assign(thread_count_, 0);
    for (ThreadId t = 0; t < thread_count_; ++t) {
      const auto& mine = por_.ThreadEvents(t);
      ptr_[t] =
          static_cast<uint64_t>(std::lower_bound(mine.begin(), mine.end(), start) - mine.begin());
    }
    needed_until_.assign(thread_count_, 0);
    blocker_.assign(thread_count_, Blocker{});
    ResetThreads();
  }

  // Every thread with events left becomes runnable again (after a section move, every earlier
  // decision to park is stale).
  void ResetThreads() {
    heap_ = {};
    parked_.clear();
    wanted_.clear();
    state_.assign(thread_count_, ThreadState::kFinished);
    for (ThreadId t = 0; t < thread_count_; ++t) {
      if (HasNext(t)) {
        state_[t] = ThreadState::kRunnable;
        heap_.push({Next(t), t});
      }
    }
  }

  bool HasNext(ThreadId t) const { return ptr_[t] < events_of_[t]->size(); }
  EventIndex Next(ThreadId t) const { return (*events_of_[t])[ptr_[t]]; }
  bool Emitted(EventIndex e) const { return por_.LocalIndex(e) < ptr_[trace_.thread[e]]; }
  bool dormant_count_zero() const {
    return std::none_of(state_.begin(), state_.end(),
                        [](ThreadState s) { return s == ThreadState::kDormant; });
  }

  void Evaluate(ThreadId t) {
    const EventIndex e = Next(t);
    if (e > horizon_ && !later_events_free_ && !NeededLater(t)) {
      Park(t, Blocker{BlockKind::kBeyondHorizon, 0});
      return;
    }
    if (auto b = GateBlock(e)) return Park(t, *b);
    if (auto b = PorBlock(e, t, /*every_thread=*/false, kNoThread)) return Park(t, *b);
    if (auto b = LockBlock(e, t)) return Park(t, *b);
    if (pattern_.adjacent && e == pattern_.events[0]) {
      const EventIndex second = pattern_.events[1];
      const ThreadId t2 = trace_.thread[second];
      if (!HasNext(t2) || Next(t2) != second) {
        return Park(t, Blocker{BlockKind::kThreadAdvance, t2});
      }
      if (auto b = GateBlock(second, /*ignore=*/e)) return Park(t, *b);
      if (auto b = PorBlock(second, t2, /*every_thread=*/true, /*ran=*/t)) return Park(t, *b);
      if (auto b = LockBlock(second, t2)) return Park(t, *b);
      Emit(e);
      Emit(second);
      Requeue(t);
      Requeue(t2);
      return;
    }
    Emit(e);
    Requeue(t);
  }

  std::optional<Blocker> GateBlock(EventIndex e, EventIndex ignore = ~EventIndex{0}) const {
    if (pattern_.adjacent && e == pattern_.events[1] && ignore == ~EventIndex{0}) {
      return Blocker{BlockKind::kEvent, pattern_.events[0]};  // runs only right after the first
    }
    auto it = gates_.find(e);
    if (it == gates_.end()) return std::nullopt;
    for (EventIndex g : it->second) {
      if (g != ignore && !Emitted(g)) return Blocker{BlockKind::kEvent, g};
    }
    return std::nullopt;
  }

  // A POR predecessor of e that has not run. Only threads whose next event precedes e can hold
  // one; when e is the heap's minimum those are exactly the parked threads. `ran` is a thread
  // whose next event counts as already run (the race's first access, in the paired step).
  std::optional<Blocker> PorBlock(EventIndex e, ThreadId t, bool every_thread, ThreadId ran) const {
    auto check = [&](ThreadId u) -> bool {
      if (u == t || u == ran || !HasNext(u)) return false;
      const EventIndex n = Next(u);
      return n < e && por_.Ordered(n, e);
    };
    if (every_thread) {
      for (ThreadId u = 0; u < thread_count_; ++u) {
        if (check(u)) return Blocker{BlockKind::kThreadAdvance, u};
      }
    } else {
      for (ThreadId u : parked_) {
        if (check(u)) return Blocker{BlockKind::kThreadAdvance, u};
      }
    }
    return std::nullopt;
  }

  std::optional<Blocker> LockBlock(EventIndex e, ThreadId t) const {
    const EventKind kind = trace_.kind[e];
    if (!IsAcquire(kind)) return std::nullopt;
    if (locks_.Conflict(t, trace_.addr[e], kind == EventKind::kReadLock)) {
      return Blocker{BlockKind::kLockRelease, trace_.addr[e]};
    }
    return std::nullopt;
  }

  // Events after the horizon run only for a parked thread's sake: to release a lock it waits
  // for, or to send it a POR edge.
  bool NeededLater(ThreadId t) const {
    if (ptr_[t] < needed_until_[t]) return true;
    for (const auto& [lock, waiters] : wanted_) {
      if (waiters > 0 && locks_.Holds(t, lock)) return true;
    }
    return false;
  }

  void Park(ThreadId t, const Blocker& blocker) {
    blocker_[t] = blocker;
    state_[t] =
        blocker.kind == BlockKind::kBeyondHorizon ? ThreadState::kDormant : ThreadState::kWaiting;
    parked_.push_back(t);
    if (blocker.kind == BlockKind::kLockRelease) {
      ++wanted_[blocker.what];
      const EventIndex e = Next(t);
      if (const auto* holder =
              locks_.Conflict(t, blocker.what, trace_.kind[e] == EventKind::kReadLock)) {
        if (state_[holder->thread] == ThreadState::kDormant) Wake(holder->thread);
      }
    } else if (blocker.kind == BlockKind::kThreadAdvance) {
      const ThreadId u = static_cast<ThreadId>(blocker.what);
      MarkNeeded(u, Next(t));
      if (state_[u] == ThreadState::kDormant) Wake(u);
    }
  }

  // Thread u must run at least through its last event that is a POR predecessor of e.
  void MarkNeeded(ThreadId u, EventIndex e) {
    const auto& mine = por_.ThreadEvents(u);
    uint64_t lo = ptr_[u];
    uint64_t hi =
        static_cast<uint64_t>(std::lower_bound(mine.begin(), mine.end(), e) - mine.begin());
    // Ordered(mine[k], e) holds for a prefix of k: find its end in [lo, hi).
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (por_.Ordered(mine[mid], e)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    needed_until_[u] = std::max(needed_until_[u], lo);
  }

  void Wake(ThreadId t) {
    auto it = std::find(parked_.begin(), parked_.end(), t);
    if (it != parked_.end()) parked_.erase(it);
    if (blocker_[t].kind == BlockKind::kLockRelease) --wanted_[blocker_[t].what];
    state_[t] = ThreadState::kRunnable;
    heap_.push({Next(t), t});
  }

  void Requeue(ThreadId t) {
    if (!HasNext(t)) {
      state_[t] = ThreadState::kFinished;
      return;
    }
    if (state_[t] == ThreadState::kRunnable) heap_.push({Next(t), t});
  }

  void Emit(EventIndex e) {
    const ThreadId t = trace_.thread[e];
    steps_.push_back(e);
    ++ptr_[t];
    const EventKind kind = trace_.kind[e];
    const bool lock_event = IsAcquire(kind) || IsRelease(kind);
    if (lock_event) locks_.Apply(trace_, e);
    if (parked_.empty()) return;
    // Wake the parked threads whose reason may have gone away.
    std::vector<ThreadId> wake;
    for (ThreadId w : parked_) {
      const Blocker& b = blocker_[w];
      const bool woken =
          (b.kind == BlockKind::kThreadAdvance && b.what == t) ||
          (b.kind == BlockKind::kEvent && b.what == e) ||
          (b.kind == BlockKind::kLockRelease && IsRelease(kind) && trace_.addr[e] == b.what);
      if (woken) wake.push_back(w);
    }
    for (ThreadId w : wake) Wake(w);
  }

  // Every thread is parked. If one waits for a lock held by a thread that cannot get on, take
  // that thread's critical section back out of the schedule and replay it after the waiter's
  // acquisition (PECAN's move of the outermost lock's block).
  bool TryMoveSection() {
    if (result_.sections_moved >= PatternScheduler::kMaxSectionMoves) return false;
    std::vector<ThreadId> waiters;
    for (ThreadId w : parked_) {
      if (state_[w] == ThreadState::kWaiting && blocker_[w].kind == BlockKind::kLockRelease) {
        waiters.push_back(w);
      }
    }
    std::sort(waiters.begin(), waiters.end(),
              [&](ThreadId a, ThreadId b) { return Next(a) < Next(b); });
    for (ThreadId w : waiters) {
      const EventIndex acquisition = Next(w);
      const auto* holder = locks_.Conflict(w, trace_.addr[acquisition],
                                           trace_.kind[acquisition] == EventKind::kReadLock);
      if (!holder) continue;
      if (MoveSectionAfter(holder->acquisitions.front(), acquisition,
                           PatternWaitOf(holder->thread))) {
        return true;
      }
    }
    return false;
  }

  // When thread h is parked at a pattern event, the event the pattern waits for before h can go
  // on: a section of h moved out of the way is best replayed only after it, as PECAN moves the
  // OML block to just before v_j — replaying it earlier would only block the lock again.
  std::optional<EventIndex> PatternWaitOf(ThreadId h) const {
    if (state_[h] != ThreadState::kWaiting || !HasNext(h)) return std::nullopt;
    const EventIndex e = Next(h);
    if (pattern_.adjacent && e == pattern_.events[0]) {
      const EventIndex second = pattern_.events[1];
      const uint64_t local = por_.LocalIndex(second);
      if (local == 0) return std::nullopt;
      const EventIndex before = por_.ThreadEvents(trace_.thread[second])[local - 1];
      return Emitted(before) ? std::nullopt : std::optional<EventIndex>(before);
    }
    auto it = gates_.find(e);
    if (it == gates_.end()) return std::nullopt;
    for (EventIndex g : it->second) {
      if (!Emitted(g)) return g;
    }
    return std::nullopt;
  }

  // First local index of each thread at or after which its emitted events depend on a root.
  std::vector<uint64_t> DependentCutoff(const std::vector<EventIndex>& roots) const {
    std::vector<uint64_t> cutoff(ptr_);
    for (EventIndex r : roots) {
      const ThreadId rt = trace_.thread[r];
      cutoff[rt] = std::min<uint64_t>(cutoff[rt], por_.LocalIndex(r));
      for (ThreadId u = 0; u < thread_count_; ++u) {
        if (u == rt) continue;
        const auto& mine = por_.ThreadEvents(u);
        uint64_t lo =
            static_cast<uint64_t>(std::upper_bound(mine.begin(), mine.end(), r) - mine.begin());
        uint64_t hi = ptr_[u];
        // Ordered(r, mine[k]) holds for a suffix of k.
        while (lo < hi) {
          const uint64_t mid = lo + (hi - lo) / 2;
          if (por_.Ordered(r, mine[mid])) {
            hi = mid;
          } else {
            lo = mid + 1;
          }
        }
        cutoff[u] = std::min(cutoff[u], lo);
      }
    }
    return cutoff;
  }

  // The acquisition of `lock` that thread u holds open just before its `local`-th event.
  std::optional<EventIndex> OpenAcquisition(ThreadId u, uint64_t local, uint64_t lock) const {
    const auto& mine = por_.ThreadEvents(u);
    uint32_t depth = 0;
    for (uint64_t k = local; k-- > 0;) {
      const EventIndex x = mine[k];
      if (trace_.addr[x] != lock) continue;
      if (IsRelease(trace_.kind[x])) {
        ++depth;
      } else if (IsAcquire(trace_.kind[x])) {
        if (depth == 0) return x;
        --depth;
      }
    }
    return std::nullopt;
  }

  // A taken-back release whose acquisition stays in the schedule would leave the lock held for
  // good (locks that are not nested): that acquisition has to be taken back too.
  std::optional<EventIndex> ReleaseOfKeptAcquisition(const std::vector<uint64_t>& cutoff) const {
    std::unordered_map<uint64_t, uint32_t> open;  // lock -> acquisitions taken back, not released
    for (ThreadId u = 0; u < thread_count_; ++u) {
      const auto& mine = por_.ThreadEvents(u);
      open.clear();
      for (uint64_t k = cutoff[u]; k < ptr_[u]; ++k) {
        const EventIndex e = mine[k];
        if (IsAcquire(trace_.kind[e])) {
          ++open[trace_.addr[e]];
        } else if (IsRelease(trace_.kind[e])) {
          uint32_t& n = open[trace_.addr[e]];
          if (n > 0) {
            --n;
          } else if (auto a = OpenAcquisition(u, cutoff[u], trace_.addr[e])) {
            return a;
          }
        }
      }
    }
    return std::nullopt;
  }

  // Holding the section of `acquisition` back until `wait` runs must not hold back anything that
  // has to run before `wait`: `wait` itself by POR, or a pattern event the pattern puts before it.
  bool WaitIsIndependent(EventIndex acquisition, EventIndex wait) const {
    if (por_.Ordered(acquisition, wait)) return false;
    const auto& events = pattern_.events;
    const auto at = std::find(events.begin(), events.end(), wait);
    if (at == events.end()) return true;
    for (auto e = events.begin(); e != at; ++e) {
      if (*e == acquisition || por_.Ordered(acquisition, *e)) return false;
    }
    return true;
  }

  bool MoveSectionAfter(EventIndex acquisition, EventIndex waiter, std::optional<EventIndex> wait) {
    if (por_.Ordered(acquisition, waiter)) return false;
    std::vector<EventIndex> roots{acquisition};
    std::vector<uint64_t> cutoff;
    auto taken_back = [&](EventIndex e) { return por_.LocalIndex(e) >= cutoff[trace_.thread[e]]; };
    for (;;) {
      cutoff = DependentCutoff(roots);
      const auto outside = ReleaseOfKeptAcquisition(cutoff);
      if (!outside) break;
      if (por_.Ordered(*outside, waiter) ||
          std::find(roots.begin(), roots.end(), *outside) != roots.end()) {
        return false;
      }
      roots.push_back(*outside);
    }
    // Pattern events already run keep their order: none may be taken back while a later one
    // stays in the schedule.
    const auto& events = pattern_.events;
    for (size_t p = 0; p < events.size(); ++p) {
      if (!Emitted(events[p]) || !taken_back(events[p])) continue;
      for (size_t q = p + 1; q < events.size(); ++q) {
        if (Emitted(events[q]) && !taken_back(events[q])) return false;
      }
    }

    // Acquisitions taken back and still held are forgotten; the rest of the taken-back lock
    // events cancel out (each taken-back release's acquisition is taken back too).
    for (ThreadId u = 0; u < thread_count_; ++u) {
      const auto& mine = por_.ThreadEvents(u);
      for (uint64_t k = cutoff[u]; k < ptr_[u]; ++k) {
        if (IsAcquire(trace_.kind[mine[k]])) locks_.Forget(trace_, mine[k]);
      }
    }
    std::erase_if(steps_, taken_back);
    for (ThreadId u = 0; u < thread_count_; ++u) ptr_[u] = std::min(ptr_[u], cutoff[u]);
    gates_[acquisition].push_back(waiter);
    if (wait && WaitIsIndependent(acquisition, *wait)) gates_[acquisition].push_back(*wait);
    ++result_.sections_moved;
    ResetThreads();
    return true;
  }

  std::string DescribeBlocker(ThreadId t) const {
    const Blocker& b = blocker_[t];
    switch (b.kind) {
      case BlockKind::kThreadAdvance:
        return "for " + DescribeThread(trace_, static_cast<ThreadId>(b.what)) +
               (HasNext(static_cast<ThreadId>(b.what))
                    ? " to run " + DescribeStep(trace_, Next(static_cast<ThreadId>(b.what)))
                    : std::string(" (finished)"));
      case BlockKind::kLockRelease: {
        std::string who;
        const EventIndex e = Next(t);
        if (const auto* h = locks_.Conflict(t, b.what, trace_.kind[e] == EventKind::kReadLock)) {
          who = " held by " + DescribeThread(trace_, h->thread);
        }
        return "for lock " + Hex(b.what) + who;
      }
      case BlockKind::kEvent:
        return "for " + DescribeStep(trace_, b.what) + " to run first";
      case BlockKind::kBeyondHorizon:
        break;
    }
    return "(recorded after the anomaly)";
  }

  std::string DescribeStuck() const {
    std::string missing;
    for (EventIndex e : pattern_.events) {
      if (!Emitted(e)) {
        missing = DescribeStep(trace_, e);
        break;
      }
    }
    std::string text = "no order of the remaining events reaches " + missing + ":";
    int shown = 0;
    for (ThreadId t : parked_) {
      if (state_[t] != ThreadState::kWaiting) continue;
      if (shown++ == 3) {
        text += " ...";
        break;
      }
      text += (shown > 1 ? ";" : "") + std::string(" ") + DescribeThread(trace_, t) + " waits at " +
              DescribeStep(trace_, Next(t)) + " " + DescribeBlocker(t);
    }
    if (result_.sections_moved >= PatternScheduler::kMaxSectionMoves) {
      text +=
          " (gave up after " + std::to_string(result_.sections_moved) + " critical-section moves)";
    }
    return text;
  }

  const Trace& trace_;
  const PorIndex& por_;
  const PatternOrder& pattern_;
  const std::vector<std::pair<EventIndex, EventIndex>>& extra_order_;

  uint32_t thread_count_ = 0;
  EventIndex horizon_ = 0;
  bool later_events_free_ = false;
  std::vector<const std::vector<EventIndex>*> events_of_;  // PorIndex::ThreadEvents, per thread
  std::vector<EventIndex> steps_;
  std::vector<uint64_t> ptr_;           // per thread: how many of its events have run
  std::vector<uint64_t> needed_until_;  // per thread: run at least this many (for POR edges)
  std::vector<ThreadState> state_;
  std::vector<Blocker> blocker_;
  std::vector<ThreadId> parked_;                   // waiting or dormant threads
  std::unordered_map<uint64_t, uint32_t> wanted_;  // lock -> threads parked waiting for it
  std::unordered_map<EventIndex, std::vector<EventIndex>> gates_;  // event -> must run after
  LockBook locks_;
  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<HeapEntry>> heap_;
  SchedulerResult result_;
};

}  // namespace

PatternScheduler::PatternScheduler(const Trace& trace, const PorIndex& por)
    : trace_(trace), por_(por) {}

SchedulerResult PatternScheduler::Build(
    const PatternOrder& pattern,
    const std::vector<std::pair<EventIndex, EventIndex>>& extra_order) const {
  return Run(trace_, por_, pattern, extra_order).Execute();
}

}  // namespace pecan
