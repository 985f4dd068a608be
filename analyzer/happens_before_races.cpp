// FindHappensBeforeRaces: one pass in trace order keeping a vector clock per thread and per lock,
// with the non-lock edges replayed from PorIndex, and the accesses still racy in a RaceShadow.
#include "analyzer/happens_before_races.h"

#include <unordered_map>

#include "analyzer/por_index.h"
#include "analyzer/race_shadow.h"
#include "analyzer/sync_edge_snapshots.h"

namespace pecan {
namespace {

// Lock release clocks: writers acquire both, readers only `write`.
struct LockClocks {
  VectorClock write;  // the last write-mode release
  VectorClock read;   // join of the read-mode releases
};

class Detector {
 public:
  explicit Detector(const Trace& trace)
      : trace_(trace), por_(trace), edges_(por_.SyncEdges()), shadow_(trace) {}

  std::vector<HappensBeforeRace> Run() {
    const uint32_t n = por_.ThreadCount();
    clocks_.assign(n, VectorClock(n, 0));
    local_.assign(n, 0);
    const EventIndex count = trace_.size_events();
    for (EventIndex i = 0; i < count; ++i) {
      const ThreadId t = trace_.thread[i];
      VectorClock& clock = clocks_[t];
      const uint32_t epoch = ++local_[t];
      clock[t] = epoch;
      // Receiving side first: the event is ordered after its sources.
      edges_.ForEachArriving(i, [&](const VectorClock& source) { JoinClock(clock, source); });
      VisitLock(i, clock);
      shadow_.Visit(i, t, epoch, clock);
      if (edges_.IsSource(i)) edges_.Keep(clock);
    }
    return shadow_.TakeRaces();
  }

 private:
  void VisitLock(EventIndex i, VectorClock& clock) {
    const uint64_t addr = trace_.addr[i];
    switch (trace_.kind[i]) {
      case EventKind::kLock: {
        LockClocks& lock = Lock(addr);
        JoinClock(clock, lock.write);
        JoinClock(clock, lock.read);
        break;
      }
      case EventKind::kReadLock:
        JoinClock(clock, Lock(addr).write);
        break;
      case EventKind::kUnlock:
        Lock(addr).write = clock;
        break;
      case EventKind::kReadUnlock:
        JoinClock(Lock(addr).read, clock);
        break;
      default:
        break;
    }
  }

  LockClocks& Lock(uint64_t addr) {
    LockClocks& lock = locks_[addr];
    if (lock.write.empty()) {
      lock.write.assign(clocks_.size(), 0);
      lock.read.assign(clocks_.size(), 0);
    }
    return lock;
  }

  const Trace& trace_;
  PorIndex por_;
  SyncEdgeSnapshots<VectorClock> edges_;
  RaceShadow shadow_;
  std::vector<VectorClock> clocks_;  // per thread
  std::vector<uint32_t> local_;      // per thread: events seen so far
  std::unordered_map<uint64_t, LockClocks> locks_;
};

}  // namespace

std::vector<HappensBeforeRace> FindHappensBeforeRaces(const Trace& trace) {
  return Detector(trace).Run();
}

}  // namespace pecan
