// AnalysisContext: builds the search's indices with column scans and counting sorts; nothing
// here allocates per event beyond a few flat arrays.
#include "analyzer/analysis_context.h"

#include <algorithm>
#include <future>
#include <map>
#include <unordered_map>

#include "analyzer/flat_hash_map.h"

namespace pecan {
namespace {

struct ClassKey {
  LocationId location;
  ThreadId thread;
  SiteId site;
  EventKind kind;
  uint32_t lock_key;
  // The access's bytes, only where the location's accesses differ in range (else 0, 0).
  uint64_t addr;
  uint32_t size;
  bool operator==(const ClassKey&) const = default;
};

struct ClassKeyHash {
  size_t operator()(const ClassKey& k) const {
    uint64_t h = (uint64_t{k.thread} << 32 | k.site) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t{k.lock_key} << 8 | static_cast<uint8_t>(k.kind)) * 0xBF58476D1CE4E5B9ull;
    h ^= uint64_t{k.location} * 0x94D049BB133111EBull;
    h ^= (k.addr + k.size) * 0xD6E8FEB86659FD93ull;
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

uint64_t AccessEnd(const Trace& trace, EventIndex i) {
  return trace.addr[i] + std::max<uint32_t>(trace.size[i], 1);
}

}  // namespace

struct AnalysisContext::BaseIndices {
  PorIndex por;
  LocksetTable locksets;
  LocationTable locations;
  RegionTable regions;
};

AnalysisContext::BaseIndices AnalysisContext::BuildBase(const Trace& trace, RegionMode mode,
                                                        bool parallel,
                                                        const LocationFilter& filter) {
  if (!parallel) {
    return BaseIndices{PorIndex(trace), LocksetTable(trace), LocationTable(trace, filter),
                       RegionTable(trace, mode)};
  }
  // Each index is one pass over the trace and independent of the others.
  auto por_and_locks = std::async(std::launch::async, [&trace] {
    return std::make_pair(PorIndex(trace), LocksetTable(trace));
  });
  LocationTable locations(trace, filter);
  RegionTable regions(trace, mode);
  auto [por, locksets] = por_and_locks.get();
  return BaseIndices{std::move(por), std::move(locksets), std::move(locations), std::move(regions)};
}

AnalysisContext::AnalysisContext(const Trace& trace_in, RegionMode region_mode, bool parallel,
                                 const LocationFilter& filter)
    : AnalysisContext(trace_in, BuildBase(trace_in, region_mode, parallel, filter)) {}

AnalysisContext::AnalysisContext(const Trace& trace_in, BaseIndices&& base)
    : trace(trace_in),
      por(std::move(base.por)),
      locksets(std::move(base.locksets)),
      locations(std::move(base.locations)),
      regions(std::move(base.regions)) {
  const size_t n = trace.size_events();
  const size_t location_count = locations.Count();
  const ThreadId thread_count = por.ThreadCount();

  // Every pass below reads the per-event columns in trace order: at tens of millions of events
  // a pass per location would spend its time on cache misses.

  // Classes, numbered first in order of first member across all locations.
  struct FirstSeen {
    LocationId location;
    AccessClass cls;
  };
  std::vector<FirstSeen> seen;
  class_of.assign(n, kNoClass);
  {
    // A class's key is in its record (seen): the table holds only ids.
    FlatIdTable ids;
    for (EventIndex i = 0; i < n; ++i) {
      const LocationId l = locations.Of(i);
      if (l == kNoLocation) continue;
      const LocksetId lockset = locksets.Of(i);
      const LocationInfo& info = locations.Info(l);
      const bool single = info.single_range;
      const ClassKey key{l,
                         trace.thread[i],
                         trace.site[i],
                         trace.kind[i],
                         locksets.AddressSetOf(lockset),
                         single ? 0 : trace.addr[i],
                         single ? 0 : std::max<uint32_t>(trace.size[i], 1)};
      auto same = [&](uint32_t id) {
        const FirstSeen& f = seen[id];
        const AccessClass& c = f.cls;
        return f.location == l && c.thread == key.thread && c.site == key.site &&
               c.kind == key.kind && c.lock_key == key.lock_key &&
               (single || (c.begin == key.addr && c.end == key.addr + key.size));
      };
      bool inserted = false;
      const uint32_t id = ids.FindOrAdd(ClassKeyHash()(key), static_cast<uint32_t>(seen.size()),
                                        same, &inserted);
      if (inserted) {
        seen.push_back(
            FirstSeen{l, AccessClass{key.thread, key.site, key.kind, lockset, key.lock_key, 0, 0,
                                     single ? info.begin : trace.addr[i],
                                     single ? info.end : AccessEnd(trace, i)}});
      }
      class_of[i] = id;
      ++seen[id].cls.member_count;
    }
  }

  // Renumbered by location (a stable counting sort keeps first-member order within one).
  class_offsets.assign(location_count + 1, 0);
  for (const FirstSeen& f : seen) ++class_offsets[f.location + 1];
  for (size_t l = 0; l < location_count; ++l) class_offsets[l + 1] += class_offsets[l];
  std::vector<uint32_t> renumbered(seen.size());
  classes.resize(seen.size());
  {
    std::vector<uint64_t> fill(class_offsets.begin(), class_offsets.end() - 1);
    for (size_t c = 0; c < seen.size(); ++c) {
      renumbered[c] = static_cast<uint32_t>(fill[seen[c].location]++);
      classes[renumbered[c]] = seen[c].cls;
    }
  }
  uint64_t next_member = 0;
  for (AccessClass& c : classes) {
    c.first_member = next_member;
    next_member += c.member_count;
  }

  // Runs: per location, one per thread in thread order; a class lies in its thread's run.
  std::vector<uint32_t> run_of_class(classes.size());
  std::vector<uint64_t> run_fill;
  run_offsets.assign(1, 0);
  {
    std::vector<uint64_t> per_thread(thread_count, 0);
    uint64_t base = 0;
    for (LocationId l = 0; l < location_count; ++l) {
      std::fill(per_thread.begin(), per_thread.end(), 0);
      for (uint64_t c = class_offsets[l]; c < class_offsets[l + 1]; ++c)
        per_thread[classes[c].thread] += classes[c].member_count;
      const size_t first_run = runs.size();
      for (ThreadId t = 0; t < thread_count; ++t) {
        if (per_thread[t] == 0) continue;
        runs.push_back(ThreadRun{t, base, base + per_thread[t]});
        base += per_thread[t];
      }
      run_offsets.push_back(runs.size());
      for (uint64_t c = class_offsets[l]; c < class_offsets[l + 1]; ++c) {
        for (size_t r = first_run; r < runs.size(); ++r) {
          if (runs[r].thread == classes[c].thread) run_of_class[c] = static_cast<uint32_t>(r);
        }
      }
    }
    run_fill.reserve(runs.size());
    for (const ThreadRun& run : runs) run_fill.push_back(run.begin);
  }

  // Members, runs and region lists, filled in one pass in trace order.
  class_members.resize(next_member);
  by_thread.resize(next_member);
  std::vector<uint64_t> member_fill(classes.size());
  for (size_t c = 0; c < classes.size(); ++c) member_fill[c] = classes[c].first_member;
  std::vector<uint64_t> region_counts(regions.Count() + 1, 0);
  for (EventIndex i = 0; i < n; ++i) {
    if (class_of[i] == kNoClass) continue;
    const uint32_t c = renumbered[class_of[i]];
    class_of[i] = c;
    class_members[member_fill[c]++] = i;
    by_thread[run_fill[run_of_class[c]]++] = i;
    const RegionId r = regions.Of(i);
    if (r != kNoRegion) ++region_counts[r + 1];
  }
  for (size_t r = 1; r < region_counts.size(); ++r) region_counts[r] += region_counts[r - 1];
  region_offsets = region_counts;
  region_accesses.resize(region_counts.back());
  region_access_locations.resize(region_counts.back());
  for (EventIndex i = 0; i < n; ++i) {
    if (class_of[i] == kNoClass) continue;
    const RegionId r = regions.Of(i);
    if (r == kNoRegion) continue;
    region_access_locations[region_counts[r]] = locations.Of(i);
    region_accesses[region_counts[r]++] = i;
  }
}

const ThreadRun* AnalysisContext::RunOf(LocationId l, ThreadId t) const {
  for (uint64_t r = run_offsets[l]; r < run_offsets[l + 1]; ++r) {
    if (runs[r].thread == t) return &runs[r];
  }
  return nullptr;
}

bool AnalysisContext::RangesOverlap(EventIndex a, EventIndex b) const {
  return trace.addr[a] < AccessEnd(trace, b) && trace.addr[b] < AccessEnd(trace, a);
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
