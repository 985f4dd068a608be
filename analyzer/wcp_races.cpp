// FindWcpRaces: the vector-clock algorithm of the WCP paper (its Algorithm 1) over pecan's
// events. Per thread an HB clock H and a WCP clock P; per lock the clocks of its last release,
// per lock and granule the HB clocks of the releases whose critical sections read or wrote it
// (rule a), and the critical sections of the lock in order with their release clocks (rule b).
#include "analyzer/wcp_races.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "analyzer/por_index.h"
#include "analyzer/sync_edge_snapshots.h"

namespace pecan {
namespace {

constexpr unsigned kGranuleShift = 3;

// A critical section of a mutex, for rule (b): its thread, its acquisition's epoch and, once it
// ended, the HB clock of its release.
struct CriticalSection {
  ThreadId thread = 0;
  uint32_t acquire_epoch = 0;
  VectorClock release_h;
};

struct MutexState {
  VectorClock h, p;  // the last release's clocks
  // Rule (a): per granule, the join of the HB clocks of releases whose sections read/wrote it.
  std::unordered_map<uint64_t, VectorClock> read_by, wrote_by;
  // Rule (b): sections in acquisition order from `first`; `next[t]`: the first one thread t has
  // not yet been ordered after (absolute numbers).
  std::deque<CriticalSection> sections;
  uint64_t first = 0;
  std::vector<uint64_t> next;
  // Per thread, its last release of this mutex in the trace: afterwards its `next` is dead.
  std::vector<EventIndex> last_release;
};

// A lock held in read mode somewhere: ordered as happens-before orders it, strongly.
struct SharedLockState {
  VectorClock write_h, write_c;  // the last write-mode release
  VectorClock read_h, read_c;    // join of the read-mode releases
};

// A mutex a thread holds: how deep (recursive locking), and the granules its section touched.
struct Held {
  uint64_t lock = 0;
  uint32_t depth = 1;
  std::vector<uint64_t> reads, writes;
};

struct EdgeClocks {
  VectorClock h, c;  // HB clock and WCP clock with the source's own epoch
};

class Detector {
 public:
  Detector(const Trace& trace, const PorIndex& por)
      : trace_(trace), por_(por), edges_(por_.SyncEdges()), shadow_(trace) {}

  std::vector<WcpRace> Run() {
    n_ = por_.ThreadCount();
    h_.assign(n_, VectorClock(n_, 0));
    p_.assign(n_, VectorClock(n_, 0));
    held_.assign(n_, {});
    ScanLocks();
    const EventIndex count = trace_.size_events();
    for (EventIndex i = 0; i < count; ++i) {
      const ThreadId t = trace_.thread[i];
      const uint32_t epoch = ++h_[t][t];
      edges_.ForEachArriving(i, [&](const EdgeClocks& source) {
        JoinClock(h_[t], source.h);
        JoinClock(p_[t], source.c);
      });
      Visit(i, t, epoch);
      shadow_.Visit(i, t, epoch, p_[t]);
      if (edges_.IsSource(i)) edges_.Keep(EdgeClocks{h_[t], Combined(t)});
    }
    return shadow_.TakeRaces();
  }

 private:
  // Which locks are ever held in read mode, and each thread's last release of each mutex.
  void ScanLocks() {
    const EventIndex count = trace_.size_events();
    for (EventIndex i = 0; i < count; ++i) {
      const EventKind kind = trace_.kind[i];
      if (kind == EventKind::kReadLock || kind == EventKind::kReadUnlock)
        shared_.try_emplace(trace_.addr[i]);
    }
    for (auto& [addr, lock] : shared_) {
      for (VectorClock* c : {&lock.write_h, &lock.write_c, &lock.read_h, &lock.read_c})
        c->assign(n_, 0);
    }
    for (EventIndex i = 0; i < count; ++i) {
      if (trace_.kind[i] != EventKind::kUnlock || shared_.count(trace_.addr[i])) continue;
      Mutex(trace_.addr[i]).last_release[trace_.thread[i]] = i;
    }
  }

  MutexState& Mutex(uint64_t addr) {
    MutexState& m = mutexes_[addr];
    if (m.h.empty()) {
      m.h.assign(n_, 0);
      m.p.assign(n_, 0);
      m.next.assign(n_, 0);
      m.last_release.assign(n_, 0);
    }
    return m;
  }

  // C_t: what thread t's current event is WCP-ordered after, with its own epoch.
  VectorClock Combined(ThreadId t) const {
    VectorClock c = p_[t];
    c[t] = h_[t][t];
    return c;
  }

  void Visit(EventIndex i, ThreadId t, uint32_t epoch) {
    const EventKind kind = trace_.kind[i];
    const uint64_t addr = trace_.addr[i];
    if (auto shared = shared_.find(addr); shared != shared_.end() &&
                                          (IsAcquire(kind) || IsRelease(kind))) {
      VisitSharedLock(kind, t, shared->second);
    } else if (kind == EventKind::kLock) {
      Acquire(t, addr, epoch);
    } else if (kind == EventKind::kUnlock) {
      Release(i, t, addr);
    } else if ((IsAccess(kind) || kind == EventKind::kFree) && !held_[t].empty()) {
      Touch(t, addr, std::max<uint32_t>(trace_.size[i], 1),
            kind == EventKind::kFree || IsWriteAccess(kind), IsReadAccess(kind));
    }
  }

  void VisitSharedLock(EventKind kind, ThreadId t, SharedLockState& lock) {
    switch (kind) {
      case EventKind::kLock:
        JoinClock(h_[t], lock.write_h);
        JoinClock(h_[t], lock.read_h);
        JoinClock(p_[t], lock.write_c);
        JoinClock(p_[t], lock.read_c);
        break;
      case EventKind::kReadLock:
        JoinClock(h_[t], lock.write_h);
        JoinClock(p_[t], lock.write_c);
        break;
      case EventKind::kUnlock:
        lock.write_h = h_[t];
        lock.write_c = Combined(t);
        break;
      default:  // kReadUnlock
        JoinClock(lock.read_h, h_[t]);
        JoinClock(lock.read_c, Combined(t));
        break;
    }
  }

  void Acquire(ThreadId t, uint64_t addr, uint32_t epoch) {
    for (Held& held : held_[t]) {
      if (held.lock == addr) {
        ++held.depth;
        return;
      }
    }
    MutexState& m = Mutex(addr);
    JoinClock(h_[t], m.h);
    JoinClock(p_[t], m.p);
    m.sections.push_back(CriticalSection{t, epoch, {}});
    held_[t].push_back(Held{addr, 1, {}, {}});
  }

  void Release(EventIndex i, ThreadId t, uint64_t addr) {
    auto& held = held_[t];
    auto it = std::find_if(held.begin(), held.end(), [&](const Held& h) { return h.lock == addr; });
    MutexState& m = Mutex(addr);
    if (it != held.end() && --it->depth > 0) return;
    // Rule (b): an earlier section of another thread whose acquisition is WCP-ordered before
    // this release has its release ordered before it too. Acquisitions are HB-ordered among
    // themselves, so once one is not ordered, none after it is.
    VectorClock& p = p_[t];
    uint64_t& next = m.next[t];
    const uint64_t own = m.first + m.sections.size();  // past this thread's open section
    for (; next < own; ++next) {
      const CriticalSection& section = m.sections[next - m.first];
      if (section.thread == t || section.release_h.empty()) continue;
      if (section.acquire_epoch > p[section.thread]) break;
      JoinClock(p, section.release_h);
    }
    // Rule (a): this section's accesses order later conflicting ones in sections of this lock.
    if (it != held.end()) {
      Publish(it->reads, m.read_by, h_[t]);
      Publish(it->writes, m.wrote_by, h_[t]);
      held.erase(it);
    }
    m.h = h_[t];
    m.p = p;
    if (!m.sections.empty() && m.sections.back().thread == t && m.sections.back().release_h.empty())
      m.sections.back().release_h = h_[t];
    Trim(m, i);
  }

  static void Publish(std::vector<uint64_t>& granules,
                      std::unordered_map<uint64_t, VectorClock>& by, const VectorClock& h) {
    std::sort(granules.begin(), granules.end());
    granules.erase(std::unique(granules.begin(), granules.end()), granules.end());
    for (uint64_t g : granules) {
      VectorClock& clock = by[g];
      if (clock.empty()) clock.assign(h.size(), 0);
      JoinClock(clock, h);
    }
  }

  // Sections every thread that still releases the mutex after event i has passed are dropped.
  void Trim(MutexState& m, EventIndex i) {
    uint64_t keep_from = m.first + m.sections.size();
    for (ThreadId u = 0; u < n_; ++u)
      if (m.last_release[u] > i) keep_from = std::min(keep_from, m.next[u]);
    for (; m.first < keep_from; ++m.first) m.sections.pop_front();
  }

  // An access (or a free, a write) of [addr, addr + size) inside the mutexes thread t holds:
  // rule (a) orders it after the earlier sections' releases that conflict with it.
  void Touch(ThreadId t, uint64_t addr, uint32_t size, bool write, bool read) {
    VectorClock& p = p_[t];
    for (uint64_t g = addr >> kGranuleShift; g <= (addr + size - 1) >> kGranuleShift; ++g) {
      for (Held& held : held_[t]) {
        MutexState& m = mutexes_[held.lock];
        if (auto w = m.wrote_by.find(g); w != m.wrote_by.end()) JoinClock(p, w->second);
        if (write) {
          if (auto r = m.read_by.find(g); r != m.read_by.end()) JoinClock(p, r->second);
          held.writes.push_back(g);
        }
        if (read) held.reads.push_back(g);
      }
    }
  }

  const Trace& trace_;
  const PorIndex& por_;
  SyncEdgeSnapshots<EdgeClocks> edges_;
  RaceShadow shadow_;
  uint32_t n_ = 0;
  std::vector<VectorClock> h_, p_;       // per thread
  std::vector<std::vector<Held>> held_;  // per thread: the mutexes it holds
  std::unordered_map<uint64_t, MutexState> mutexes_;
  std::unordered_map<uint64_t, SharedLockState> shared_;
};

}  // namespace

std::vector<WcpRace> FindWcpRaces(const Trace& trace) {
  const PorIndex por(trace);
  return FindWcpRaces(trace, por);
}

std::vector<WcpRace> FindWcpRaces(const Trace& trace, const PorIndex& por) {
  return Detector(trace, por).Run();
}

}  // namespace pecan
