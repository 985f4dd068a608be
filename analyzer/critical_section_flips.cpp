// FindCriticalSectionFlips: one pass keeping, per thread, the accesses of each section it has
// open and, per lock, the last section that ended; each ending section is compared with the
// previous one on its lock.
#include "analyzer/critical_section_flips.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "analyzer/finding_id.h"

namespace pecan {
namespace {

struct Section {
  ThreadId thread = 0;
  uint64_t lock = 0;
  EventIndex acquire = 0;
  uint32_t depth = 1;
  std::vector<EventIndex> accesses;  // the first ones, in order
};

char KindLetter(EventKind kind) { return IsWriteAccess(kind) ? 'W' : 'R'; }

class FlipFinder {
 public:
  FlipFinder(const Trace& trace, const PorIndex& por, const FlipOptions& options)
      : trace_(trace), por_(por), options_(options) {}

  std::vector<Finding> Run() {
    for (EventIndex i = 0; i < trace_.size_events(); ++i) {
      const EventKind kind = trace_.kind[i];
      if (kind == EventKind::kReadLock || kind == EventKind::kReadUnlock)
        shared_.insert(trace_.addr[i]);
    }
    open_.resize(por_.ThreadCount());
    for (EventIndex i = 0; i < trace_.size_events() && flips_.size() < options_.max_flips; ++i)
      Visit(i);
    return std::move(flips_);
  }

 private:
  void Visit(EventIndex i) {
    const EventKind kind = trace_.kind[i];
    const ThreadId t = trace_.thread[i];
    const uint64_t addr = trace_.addr[i];
    std::vector<Section>& open = open_[t];
    if (kind == EventKind::kLock && !shared_.count(addr)) {
      for (Section& s : open) {
        if (s.lock == addr) {
          ++s.depth;
          return;
        }
      }
      open.push_back(Section{t, addr, i, 1, {}});
    } else if (kind == EventKind::kUnlock && !shared_.count(addr)) {
      auto it = std::find_if(open.begin(), open.end(), [&](const Section& s) { return s.lock == addr; });
      if (it == open.end() || --it->depth > 0) return;
      Section ended = std::move(*it);
      open.erase(it);
      auto [last, first_on_lock] = last_.try_emplace(addr);
      if (!first_on_lock && last->second.thread != t) Compare(last->second, ended);
      last->second = std::move(ended);
    } else if (IsAccess(kind)) {
      for (Section& s : open)
        if (s.accesses.size() < options_.max_accesses_per_section) s.accesses.push_back(i);
    }
  }

  bool Conflict(EventIndex x, EventIndex y) const {
    const EventKind kx = trace_.kind[x], ky = trace_.kind[y];
    if (!IsWriteAccess(kx) && !IsWriteAccess(ky)) return false;
    if (IsAtomicAccess(kx) && IsAtomicAccess(ky)) return false;
    const uint64_t x_end = trace_.addr[x] + std::max<uint32_t>(trace_.size[x], 1);
    const uint64_t y_end = trace_.addr[y] + std::max<uint32_t>(trace_.size[y], 1);
    return trace_.addr[x] < y_end && trace_.addr[y] < x_end;
  }

  // `earlier` ended before `later` took the lock: flip them when their accesses conflict.
  void Compare(const Section& earlier, const Section& later) {
    for (EventIndex a : earlier.accesses) {
      for (EventIndex b : later.accesses) {
        if (!Conflict(a, b)) continue;
        if (por_.Ordered(earlier.acquire, b)) return;  // the later section must wait for it
        Add(earlier, later, b, a);
        return;
      }
    }
  }

  void Add(const Section& earlier, const Section& later, EventIndex b, EventIndex a) {
    const uint64_t key = (uint64_t{trace_.site[b]} << 32) | trace_.site[a];
    if (auto it = by_sites_.find(key); it != by_sites_.end()) {
      ++flips_[it->second].witnesses;
      return;
    }
    Finding flip;
    flip.pattern = "flip";
    flip.variant = std::string{KindLetter(trace_.kind[b]), '-', KindLetter(trace_.kind[a])};
    flip.events = {b, a};
    flip.reason = "the critical section of thread " + std::to_string(later.thread) +
                  " (event " + std::to_string(later.acquire) + ") runs before that of thread " +
                  std::to_string(earlier.thread) + " (event " + std::to_string(earlier.acquire) +
                  ") on the same lock";
    flip.id = MakeFindingId(trace_, flip);
    by_sites_.emplace(key, flips_.size());
    flips_.push_back(std::move(flip));
  }

  const Trace& trace_;
  const PorIndex& por_;
  const FlipOptions options_;
  std::unordered_set<uint64_t> shared_;          // locks held in read mode somewhere
  std::vector<std::vector<Section>> open_;       // per thread
  std::unordered_map<uint64_t, Section> last_;   // per lock: the last section that ended
  std::unordered_map<uint64_t, size_t> by_sites_;
  std::vector<Finding> flips_;
};

}  // namespace

std::vector<Finding> FindCriticalSectionFlips(const Trace& trace, const PorIndex& por,
                                              const FlipOptions& options) {
  return FlipFinder(trace, por, options).Run();
}

}  // namespace pecan
