// AnalysisContext: builds the search's indices with column scans and counting sorts; nothing
// here allocates per event beyond a few flat arrays.
#include "analyzer/analysis_context.h"

#include <algorithm>
#include <map>

namespace pecan {
namespace {

// Thread-communication events get an epoch of their own, so that accesses sharing an epoch have
// the same inter-thread order with every other event (see AccessGroup).
bool IsCommunication(EventKind k) {
  switch (k) {
    case EventKind::kRead:
    case EventKind::kWrite:
    case EventKind::kLock:
    case EventKind::kUnlock:
    case EventKind::kReadLock:
    case EventKind::kReadUnlock:
    case EventKind::kAlloc:
    case EventKind::kFree:
    case EventKind::kFuncEntry:
    case EventKind::kFuncExit:
    case EventKind::kRegionBegin:
    case EventKind::kRegionEnd:
      return false;
    default:
      return true;
  }
}

struct GroupKey {
  ThreadId thread;
  SiteId site;
  EventKind kind;
  uint32_t lock_key;
  uint32_t epoch;
  bool operator<(const GroupKey& o) const {
    return std::tie(thread, site, kind, lock_key, epoch) <
           std::tie(o.thread, o.site, o.kind, o.lock_key, o.epoch);
  }
};

}  // namespace

AnalysisContext::AnalysisContext(const Trace& trace_in, RegionMode region_mode)
    : trace(trace_in),
      por(trace_in),
      locksets(trace_in),
      locations(trace_in),
      regions(trace_in, region_mode) {
  const size_t n = trace.size_events();

  // Lock-address keys of the interned locksets.
  {
    std::map<std::vector<std::pair<uint64_t, bool>>, uint32_t> keys;
    lock_key_of_lockset.resize(locksets.Count());
    for (LocksetId id = 0; id < locksets.Count(); ++id) {
      std::vector<std::pair<uint64_t, bool>> set;
      for (const HeldLock& h : locksets.Locks(id)) set.emplace_back(h.lock, h.read_mode);
      std::sort(set.begin(), set.end());
      lock_key_of_lockset[id] = keys.emplace(set, static_cast<uint32_t>(keys.size())).first->second;
    }
  }

  // Epochs: per thread, a counter bumped around every communication event.
  std::vector<uint32_t> epoch(n);
  {
    std::vector<uint32_t> counter(por.ThreadCount(), 0);
    for (EventIndex i = 0; i < n; ++i) {
      uint32_t& c = counter[trace.thread[i]];
      if (IsCommunication(trace.kind[i])) {
        epoch[i] = ++c;
        ++c;
      } else {
        epoch[i] = c;
      }
    }
  }

  const size_t location_count = locations.Count();
  by_thread.reserve(locations.SharedAccesses());
  run_offsets.push_back(0);
  group_offsets.push_back(0);
  group_members.reserve(locations.SharedAccesses());
  std::vector<uint32_t> group_of;  // per access of the current location
  std::map<GroupKey, uint32_t> group_ids;
  for (LocationId l = 0; l < location_count; ++l) {
    const EventIndex* begin = locations.AccessesBegin(l);
    const EventIndex* end = locations.AccessesEnd(l);
    const size_t count = static_cast<size_t>(end - begin);

    // Runs by thread (stable: trace order within a thread).
    const size_t base = by_thread.size();
    by_thread.insert(by_thread.end(), begin, end);
    std::stable_sort(by_thread.begin() + static_cast<std::ptrdiff_t>(base), by_thread.end(),
                     [&](EventIndex a, EventIndex b) { return trace.thread[a] < trace.thread[b]; });
    for (size_t k = base; k < by_thread.size(); ++k) {
      const ThreadId t = trace.thread[by_thread[k]];
      if (runs.size() == run_offsets.back() || runs.back().thread != t) {
        runs.push_back(ThreadRun{t, k, k + 1});
      } else {
        runs.back().end = k + 1;
      }
    }
    run_offsets.push_back(runs.size());

    // Groups.
    group_ids.clear();
    group_of.assign(count, 0);
    const size_t group_base = groups.size();
    for (size_t k = 0; k < count; ++k) {
      const EventIndex i = begin[k];
      const GroupKey key{trace.thread[i], trace.site[i], trace.kind[i], LockKey(i), epoch[i]};
      auto [it, inserted] = group_ids.emplace(key, static_cast<uint32_t>(groups.size()));
      if (inserted) {
        groups.push_back(AccessGroup{key.thread, key.site, key.kind, key.lock_key, 0, 0});
      }
      group_of[k] = it->second;
      ++groups[it->second].member_count;
    }
    uint64_t next = group_members.size();
    for (size_t g = group_base; g < groups.size(); ++g) {
      groups[g].first_member = next;
      next += groups[g].member_count;
    }
    group_members.resize(next);
    std::vector<uint64_t> fill(groups.size() - group_base);
    for (size_t g = group_base; g < groups.size(); ++g) fill[g - group_base] = groups[g].first_member;
    for (size_t k = 0; k < count; ++k) group_members[fill[group_of[k] - group_base]++] = begin[k];
    group_offsets.push_back(groups.size());

    // Dashed edges between threads: which group pairs ran back to back.
    for (size_t k = 1; k < count; ++k) {
      if (trace.thread[begin[k - 1]] == trace.thread[begin[k]]) continue;
      adjacent_group_pairs.try_emplace(GroupPairKey(group_of[k - 1], group_of[k]),
                                       begin[k - 1], begin[k]);
    }
  }

  // Region access lists.
  {
    std::vector<uint64_t> counts(regions.Count() + 1, 0);
    for (LocationId l = 0; l < location_count; ++l) {
      for (const EventIndex* e = locations.AccessesBegin(l); e != locations.AccessesEnd(l); ++e) {
        const RegionId r = regions.Of(*e);
        if (r != kNoRegion) ++counts[r + 1];
      }
    }
    for (size_t r = 1; r < counts.size(); ++r) counts[r] += counts[r - 1];
    region_offsets = counts;
    region_accesses.resize(counts.back());
    for (EventIndex i = 0; i < n; ++i) {
      if (locations.Of(i) == kNoLocation) continue;
      const RegionId r = regions.Of(i);
      if (r != kNoRegion) region_accesses[counts[r]++] = i;
    }
  }
}

const ThreadRun* AnalysisContext::RunOf(LocationId l, ThreadId t) const {
  for (uint64_t r = run_offsets[l]; r < run_offsets[l + 1]; ++r) {
    if (runs[r].thread == t) return &runs[r];
  }
  return nullptr;
}

bool AnalysisContext::TorAdjacent(EventIndex a, EventIndex b) const {
  const LocationId l = locations.Of(a);
  if (l == kNoLocation || l != locations.Of(b)) return false;
  if (a > b) std::swap(a, b);
  const EventIndex* begin = locations.AccessesBegin(l);
  const EventIndex* end = locations.AccessesEnd(l);
  const EventIndex* pa = std::lower_bound(begin, end, a);
  return pa != end && pa + 1 != end && *pa == a && pa[1] == b;
}

}  // namespace pecan
