// RegionTable: per-thread scope counters (locks held, annotation depth, function region depth)
// decide in one pass which region each event belongs to.
#include "analyzer/atomic_regions.h"

#include <algorithm>

namespace pecan {
namespace {

bool EndsRegion(EventKind k) {
  switch (k) {
    case EventKind::kFork:
    case EventKind::kJoin:
    case EventKind::kThreadBegin:
    case EventKind::kThreadEnd:
    case EventKind::kWait:
    case EventKind::kNotify:
    case EventKind::kNotifyAll:
    case EventKind::kBarrierArrive:
    case EventKind::kBarrierDepart:
    case EventKind::kSemPost:
    case EventKind::kSemWait:
    case EventKind::kHbRelease:
    case EventKind::kHbAcquire:
      return true;
    default:
      return false;
  }
}

struct HeldLockCount {
  uint64_t lock;
  bool read_mode;
  uint32_t depth;
};

struct ThreadScopes {
  std::vector<HeldLockCount> locks;
  uint32_t annotation_depth = 0;
  // Function invocations: depth of the call stack, and for each open invocation whether it is
  // a region (so its exit closes one).
  std::vector<bool> call_is_region;
  uint32_t open_function_regions = 0;
  bool in_root = false;  // the root invocation is on the stack
  RegionId current = kNoRegion;
  uint64_t events = 0;  // events of the thread so far (for root detection)

  bool Open() const { return !locks.empty() || annotation_depth > 0 || open_function_regions > 0; }
};

std::vector<RootInvocation> FindRoots(const Trace& trace, size_t threads) {
  struct Scan {
    uint64_t events = 0;
    uint32_t depth = 0;
    uint64_t open_begin = 0;
    uint64_t best_begin = 0;
    uint64_t best_end = 0;
  };
  std::vector<Scan> scans(threads);
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    Scan& s = scans[trace.thread[i]];
    const EventKind k = trace.kind[i];
    if (k == EventKind::kFuncEntry) {
      if (s.depth++ == 0) s.open_begin = s.events;
    }
    ++s.events;
    if (k == EventKind::kFuncExit && s.depth > 0 && --s.depth == 0 &&
        s.events - s.open_begin > s.best_end - s.best_begin) {
      s.best_begin = s.open_begin;
      s.best_end = s.events;
    }
  }
  std::vector<RootInvocation> roots(threads);
  for (size_t t = 0; t < threads; ++t) {
    Scan& s = scans[t];
    // An invocation still open at the end of the trace lasts to the thread's end.
    if (s.depth > 0 && s.events - s.open_begin > s.best_end - s.best_begin) {
      s.best_begin = s.open_begin;
      s.best_end = s.events;
    }
    if (2 * (s.best_end - s.best_begin) > s.events) {
      roots[t] = RootInvocation{s.best_begin, s.best_end, true};
    }
  }
  return roots;
}

}  // namespace

struct RegionScopes::Impl {
  bool functions = false;
  std::vector<RootInvocation> roots;
  std::vector<ThreadScopes> scopes;
  RegionId opened = 0;
};

RegionScopes::RegionScopes(RegionMode mode, size_t threads)
    : RegionScopes(mode, std::vector<RootInvocation>(threads)) {}

RegionScopes::RegionScopes(RegionMode mode, std::vector<RootInvocation> roots)
    : impl_(std::make_unique<Impl>()) {
  impl_->functions = mode == RegionMode::kFunctions;
  if (!impl_->functions) access_region_.assign(roots.size(), kNoRegion);
  impl_->scopes.resize(roots.size());
  impl_->roots = std::move(roots);
}

RegionScopes::~RegionScopes() = default;
RegionScopes::RegionScopes(RegionScopes&&) noexcept = default;

RegionId RegionScopes::Opened() const {
  return impl_->opened;
}

RegionId RegionScopes::VisitScopes(ThreadId t, EventKind kind, uint64_t addr) {
  if (t >= impl_->scopes.size()) {
    impl_->scopes.resize(t + 1);
    impl_->roots.resize(t + 1);
    if (!impl_->functions) access_region_.resize(t + 1, kNoRegion);
  }
  ThreadScopes& s = impl_->scopes[t];
  const bool functions = impl_->functions;
  const uint64_t local = s.events++;

  // Scopes that open at this event.
  if (IsAcquire(kind)) {
    const bool read_mode = kind == EventKind::kReadLock;
    auto it = std::find_if(s.locks.begin(), s.locks.end(), [&](const HeldLockCount& h) {
      return h.lock == addr && h.read_mode == read_mode;
    });
    if (it != s.locks.end()) {
      ++it->depth;
    } else {
      s.locks.push_back(HeldLockCount{addr, read_mode, 1});
    }
  } else if (kind == EventKind::kRegionBegin) {
    ++s.annotation_depth;
  } else if (kind == EventKind::kFuncEntry && functions) {
    const RootInvocation& root = impl_->roots[t];
    bool is_region;
    if (s.call_is_region.empty() && root.exists && local == root.begin) {
      s.in_root = true;
      is_region = false;
    } else {
      // Directly below the root, or at depth 0 outside it, and not inside another region.
      const size_t depth = s.call_is_region.size();
      is_region = depth == (s.in_root ? 1u : 0u);
    }
    s.call_is_region.push_back(is_region);
    if (is_region) ++s.open_function_regions;
  }

  RegionId region = kNoRegion;
  if (EndsRegion(kind)) {
    s.current = kNoRegion;
  } else if (s.Open()) {
    if (s.current == kNoRegion) s.current = impl_->opened++;
    region = s.current;
  }

  // Scopes that close after this event.
  if (IsRelease(kind)) {
    const bool read_mode = kind == EventKind::kReadUnlock;
    for (size_t k = s.locks.size(); k-- > 0;) {
      if (s.locks[k].lock != addr || s.locks[k].read_mode != read_mode) continue;
      if (--s.locks[k].depth == 0) s.locks.erase(s.locks.begin() + static_cast<std::ptrdiff_t>(k));
      break;
    }
  } else if (kind == EventKind::kRegionEnd) {
    if (s.annotation_depth > 0) --s.annotation_depth;
  } else if (kind == EventKind::kFuncExit && functions && !s.call_is_region.empty()) {
    if (s.call_is_region.back()) --s.open_function_regions;
    s.call_is_region.pop_back();
    if (s.call_is_region.empty()) s.in_root = false;
  }
  if (!s.Open()) s.current = kNoRegion;
  if (!functions)
    access_region_[t] = !s.Open() ? kNoRegion : s.current == kNoRegion ? kAccessOpens : s.current;
  return region;
}

struct RegionTable::Impl {
  std::vector<RegionId> of;
  std::vector<EventIndex> first;
  std::vector<EventIndex> last;
};

RegionTable::RegionTable(const Trace& trace, RegionMode mode) : impl_(std::make_unique<Impl>()) {
  const size_t n = trace.size_events();
  size_t threads = trace.threads.size();
  for (ThreadId t : trace.thread) threads = std::max<size_t>(threads, t + 1);
  RegionScopes scopes = mode == RegionMode::kFunctions
                            ? RegionScopes(mode, FindRoots(trace, threads))
                            : RegionScopes(mode, threads);
  impl_->of.assign(n, kNoRegion);
  for (EventIndex i = 0; i < n; ++i) {
    const RegionId r = scopes.Visit(trace.thread[i], trace.kind[i], trace.addr[i]);
    if (r == kNoRegion) continue;
    if (r == impl_->first.size()) {
      impl_->first.push_back(i);
      impl_->last.push_back(i);
    }
    impl_->of[i] = r;
    impl_->last[r] = i;
  }
  of_ = impl_->of.data();
}

RegionTable::~RegionTable() = default;
RegionTable::RegionTable(RegionTable&&) noexcept = default;

size_t RegionTable::Count() const {
  return impl_->first.size();
}
EventIndex RegionTable::First(RegionId r) const {
  return impl_->first[r];
}
EventIndex RegionTable::Last(RegionId r) const {
  return impl_->last[r];
}

}  // namespace pecan
