// FindHappensBeforeRaces: one pass in trace order keeping a vector clock per thread and per lock,
// with the non-lock edges replayed from PorIndex, and per 8-byte granule the accesses still racy.
#include "analyzer/happens_before_races.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <utility>

#include "analyzer/por_index.h"

namespace pecan {
namespace {

// Clocks hold, per thread u, one more than the local index of the last event of u known to
// happen before (0: none) — the encoding of PorIndex, so an event's epoch is its local index + 1.
using Clock = std::vector<uint32_t>;

void Join(Clock& into, const Clock& from) {
  for (size_t u = 0; u < into.size(); ++u) into[u] = std::max(into[u], from[u]);
}

// Shadow memory is kept per aligned 8-byte granule; a record says which of its bytes an access
// touched, so accesses of different sizes are compared byte by byte.
constexpr unsigned kGranuleShift = 3;
constexpr uint64_t kGranuleBytes = uint64_t{1} << kGranuleShift;

struct AccessRecord {
  EventIndex event = 0;
  ThreadId thread = 0;
  uint32_t epoch = 0;
  uint8_t bytes = 0;  // mask of the granule's bytes this record still stands for
  bool write = false;
  bool atomic = false;
};

struct Access {
  EventIndex event;
  ThreadId thread;
  uint32_t epoch;
  bool write;
  bool atomic;
};

// The records of one granule: an access stands for its bytes until a later access that
// happens after it and dominates it for every future check removes them (see Dominates).
using Granule = std::vector<AccessRecord>;

// Lock release clocks: writers acquire both, readers only `write`.
struct LockClocks {
  Clock write;  // the last write-mode release
  Clock read;   // join of the read-mode releases
};

// A racing pair found in this pass, before site deduplication.
using RacePair = std::pair<EventIndex, EventIndex>;

class Detector {
 public:
  explicit Detector(const Trace& trace) : trace_(trace), por_(trace) {}

  std::vector<HappensBeforeRace> Run() {
    const uint32_t n = por_.ThreadCount();
    clocks_.assign(n, Clock(n, 0));
    local_.assign(n, 0);
    PrepareSnapshots();

    const auto& edges = por_.SyncEdges();
    size_t next_edge = 0;
    const EventIndex count = trace_.size_events();
    for (EventIndex i = 0; i < count; ++i) {
      const ThreadId t = trace_.thread[i];
      Clock& clock = clocks_[t];
      const uint32_t epoch = ++local_[t];
      clock[t] = epoch;
      // Receiving side first: the event is ordered after its sources.
      for (; next_edge < edges.size() && edges[next_edge].second == i; ++next_edge) {
        Join(clock, TakeSnapshot(edges[next_edge].first));
      }
      Visit(i, t, epoch, clock);
      if (next_source_ < sources_.size() && sources_[next_source_] == i) {
        snapshots_[next_source_++] = clock;
      }
    }
    return std::move(races_);
  }

 private:
  // The events PorIndex's edges leave from, each with the number of edges that use its clock.
  void PrepareSnapshots() {
    for (const auto& [source, destination] : por_.SyncEdges()) sources_.push_back(source);
    std::sort(sources_.begin(), sources_.end());
    uses_.reserve(sources_.size());
    size_t out = 0;
    for (size_t k = 0; k < sources_.size(); ++k) {
      if (out > 0 && sources_[out - 1] == sources_[k]) {
        ++uses_.back();
      } else {
        sources_[out++] = sources_[k];
        uses_.push_back(1);
      }
    }
    sources_.resize(out);
    snapshots_.resize(out);
  }

  // The clock at `source` (already visited: edges go forward); freed after its last use.
  Clock TakeSnapshot(EventIndex source) {
    const size_t k = std::lower_bound(sources_.begin(), sources_.end(), source) - sources_.begin();
    if (--uses_[k] == 0) return std::move(snapshots_[k]);
    return snapshots_[k];
  }

  void Visit(EventIndex i, ThreadId t, uint32_t epoch, Clock& clock) {
    const EventKind kind = trace_.kind[i];
    const uint64_t addr = trace_.addr[i];
    switch (kind) {
      case EventKind::kLock: {
        LockClocks& lock = Lock(addr);
        Join(clock, lock.write);
        Join(clock, lock.read);
        break;
      }
      case EventKind::kReadLock:
        Join(clock, Lock(addr).write);
        break;
      case EventKind::kUnlock:
        Lock(addr).write = clock;
        break;
      case EventKind::kReadUnlock:
        Join(Lock(addr).read, clock);
        break;
      case EventKind::kAlloc:
        Forget(addr, trace_.size[i], nullptr);
        break;
      case EventKind::kFree: {
        // A plain write of the whole block: it races with the accesses it does not happen after.
        found_.clear();
        Forget(addr, trace_.size[i], [&](const AccessRecord& r) {
          if (r.thread != t && r.epoch > clock[r.thread]) found_.push_back(r.event);
        });
        std::sort(found_.begin(), found_.end());
        found_.erase(std::unique(found_.begin(), found_.end()), found_.end());
        for (EventIndex earlier : found_) Report(earlier, i);
        break;
      }
      default:
        if (IsAccess(kind)) {
          CheckAndRecord(Access{i, t, epoch, IsWriteAccess(kind), IsAtomicAccess(kind)}, addr,
                         trace_.size[i], clock);
        }
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

  void CheckAndRecord(const Access& access, uint64_t addr, uint32_t size, const Clock& clock) {
    const uint64_t end = addr + std::max<uint32_t>(size, 1);
    found_.clear();
    for (uint64_t g = addr >> kGranuleShift; g <= (end - 1) >> kGranuleShift; ++g) {
      const uint64_t base = g << kGranuleShift;
      const uint64_t from = std::max(addr, base) - base;
      const uint64_t to = std::min(end, base + kGranuleBytes) - base;
      const uint8_t bytes = static_cast<uint8_t>(((1u << to) - 1) & ~((1u << from) - 1));
      CheckGranule(shadow_[g], access, bytes, clock);
    }
    if (found_.empty()) return;
    std::sort(found_.begin(), found_.end());
    found_.erase(std::unique(found_.begin(), found_.end()), found_.end());
    for (EventIndex earlier : found_) Report(earlier, access.event);
  }

  void CheckGranule(Granule& granule, const Access& access, uint8_t bytes, const Clock& clock) {
    size_t kept = 0;
    for (size_t k = 0; k < granule.size(); ++k) {
      AccessRecord& r = granule[k];
      const bool overlaps = (r.bytes & bytes) != 0;
      const bool ordered = r.thread == access.thread || r.epoch <= clock[r.thread];
      if (overlaps && !ordered && (r.write || access.write) && !(r.atomic && access.atomic)) {
        found_.push_back(r.event);
      }
      if (overlaps && ordered && Dominates(access, r)) r.bytes &= static_cast<uint8_t>(~bytes);
      if (r.bytes != 0) granule[kept++] = r;
    }
    granule.resize(kept);
    granule.push_back(AccessRecord{access.event, access.thread, access.epoch, bytes, access.write,
                                   access.atomic});
  }

  // A record that happens before `access` can stand down for the bytes `access` touches when
  // every later access racing with the record also races with `access`: `access` must conflict
  // with whatever the record conflicts with (a write, or the record is a read), and must not be
  // atomic when the record is plain (two atomics never race).
  static bool Dominates(const Access& access, const AccessRecord& r) {
    return (access.write || !r.write) && (!access.atomic || r.atomic);
  }

  // ALLOC and FREE start a new life of the block's bytes; `check`, when set, sees every record
  // standing for some of them first. Walks only the granules the shadow has, so a big block costs
  // what was accessed in it.
  void Forget(uint64_t addr, uint32_t size, const std::function<void(const AccessRecord&)>& check) {
    if (size == 0 || shadow_.empty()) return;
    const uint64_t first = addr >> kGranuleShift;
    const uint64_t last = (addr + size - 1) >> kGranuleShift;
    auto forget = [&](Granule& granule, uint64_t g) {
      const uint64_t base = g << kGranuleShift;
      const uint64_t from = std::max(addr, base) - base;
      const uint64_t to = std::min<uint64_t>(addr + size, base + kGranuleBytes) - base;
      const uint8_t bytes = static_cast<uint8_t>(((1u << to) - 1) & ~((1u << from) - 1));
      std::erase_if(granule, [&](AccessRecord& r) {
        if (check && (r.bytes & bytes) != 0) check(r);
        r.bytes &= static_cast<uint8_t>(~bytes);
        return r.bytes == 0;
      });
    };
    // A big block in a small shadow: walk the shadow rather than the block.
    if (last - first + 1 > shadow_.size()) {
      for (auto it = shadow_.begin(); it != shadow_.end();) {
        if (it->first >= first && it->first <= last) forget(it->second, it->first);
        it = it->second.empty() ? shadow_.erase(it) : std::next(it);
      }
      return;
    }
    for (uint64_t g = first; g <= last; ++g) {
      auto it = shadow_.find(g);
      if (it == shadow_.end()) continue;
      forget(it->second, g);
      if (it->second.empty()) shadow_.erase(it);
    }
  }

  void Report(EventIndex earlier, EventIndex later) {
    SiteId a = trace_.site[earlier];
    SiteId b = trace_.site[later];
    if (a > b) std::swap(a, b);
    const uint64_t key = (uint64_t{a} << 32) | b;
    auto [it, inserted] = by_sites_.try_emplace(key, races_.size());
    if (inserted) {
      races_.push_back(HappensBeforeRace{earlier, later, 1});
    } else {
      ++races_[it->second].occurrences;
    }
  }

  const Trace& trace_;
  PorIndex por_;
  std::vector<Clock> clocks_;    // per thread
  std::vector<uint32_t> local_;  // per thread: events seen so far
  std::vector<EventIndex> sources_;
  std::vector<uint32_t> uses_;
  std::vector<Clock> snapshots_;
  size_t next_source_ = 0;
  std::unordered_map<uint64_t, LockClocks> locks_;
  std::unordered_map<uint64_t, Granule> shadow_;   // by granule number (address >> 3)
  std::vector<EventIndex> found_;                  // racing earlier accesses of the current one
  std::unordered_map<uint64_t, size_t> by_sites_;  // site pair -> index in races_
  std::vector<HappensBeforeRace> races_;
};

}  // namespace

std::vector<HappensBeforeRace> FindHappensBeforeRaces(const Trace& trace) {
  return Detector(trace).Run();
}

}  // namespace pecan
