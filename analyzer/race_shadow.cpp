// RaceShadow: the accesses still racy per aligned 8-byte granule, each record saying which of the
// granule's bytes it touched, so accesses of different sizes are compared byte by byte.
#include "analyzer/race_shadow.h"

#include <algorithm>
#include <utility>

namespace pecan {
namespace {

constexpr unsigned kGranuleShift = 3;
constexpr uint64_t kGranuleBytes = uint64_t{1} << kGranuleShift;

// The bytes of granule g that [addr, end) covers.
uint8_t GranuleBytes(uint64_t g, uint64_t addr, uint64_t end) {
  const uint64_t base = g << kGranuleShift;
  const uint64_t from = std::max(addr, base) - base;
  const uint64_t to = std::min(end, base + kGranuleBytes) - base;
  return static_cast<uint8_t>(((1u << to) - 1) & ~((1u << from) - 1));
}

}  // namespace

void RaceShadow::Visit(EventIndex i, ThreadId t, uint32_t epoch, const VectorClock& known) {
  const EventKind kind = trace_.kind[i];
  const uint64_t addr = trace_.addr[i];
  if (kind == EventKind::kAlloc) {
    Forget(addr, trace_.size[i], nullptr);
  } else if (kind == EventKind::kFree) {
    // A plain write of the whole block: it races with the accesses it does not come after.
    found_.clear();
    Forget(addr, trace_.size[i], [&](const Record& r) {
      if (r.thread != t && r.epoch > known[r.thread]) found_.push_back(r.event);
    });
    ReportFound(i);
  } else if (IsAccess(kind)) {
    CheckAndRecord(Record{i, t, epoch, 0, IsWriteAccess(kind), IsAtomicAccess(kind)}, addr,
                   trace_.size[i], known);
  }
}

void RaceShadow::CheckAndRecord(const Record& access, uint64_t addr, uint32_t size,
                                const VectorClock& known) {
  const uint64_t end = addr + std::max<uint32_t>(size, 1);
  found_.clear();
  for (uint64_t g = addr >> kGranuleShift; g <= (end - 1) >> kGranuleShift; ++g)
    CheckGranule(shadow_[g], access, GranuleBytes(g, addr, end), known);
  ReportFound(access.event);
}

void RaceShadow::CheckGranule(Granule& granule, const Record& access, uint8_t bytes,
                              const VectorClock& known) {
  size_t kept = 0;
  for (size_t k = 0; k < granule.size(); ++k) {
    Record& r = granule[k];
    const bool overlaps = (r.bytes & bytes) != 0;
    const bool ordered = r.thread == access.thread || r.epoch <= known[r.thread];
    if (overlaps && !ordered && (r.write || access.write) && !(r.atomic && access.atomic)) {
      found_.push_back(r.event);
    }
    if (overlaps && ordered && Dominates(access, r)) r.bytes &= static_cast<uint8_t>(~bytes);
    if (r.bytes != 0) granule[kept++] = r;
  }
  granule.resize(kept);
  Record recorded = access;
  recorded.bytes = bytes;
  granule.push_back(recorded);
}

// A record that comes before `access` can stand down for the bytes `access` touches when every
// later access racing with the record also races with `access`: `access` must conflict with
// whatever the record conflicts with (a write, or the record is a read), and must not be atomic
// when the record is plain (two atomics never race).
bool RaceShadow::Dominates(const Record& access, const Record& r) {
  return (access.write || !r.write) && (!access.atomic || r.atomic);
}

// ALLOC and FREE start a new life of the block's bytes; `check`, when set, sees every record
// standing for some of them first. Walks only the granules the shadow has, so a big block costs
// what was accessed in it.
void RaceShadow::Forget(uint64_t addr, uint32_t size,
                        const std::function<void(const Record&)>& check) {
  if (size == 0 || shadow_.empty()) return;
  const uint64_t first = addr >> kGranuleShift;
  const uint64_t last = (addr + size - 1) >> kGranuleShift;
  auto forget = [&](Granule& granule, uint64_t g) {
    const uint8_t bytes = GranuleBytes(g, addr, addr + size);
    std::erase_if(granule, [&](Record& r) {
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

// The earlier accesses in found_ race with `later`: one race per unordered pair of sites.
void RaceShadow::ReportFound(EventIndex later) {
  if (found_.empty()) return;
  std::sort(found_.begin(), found_.end());
  found_.erase(std::unique(found_.begin(), found_.end()), found_.end());
  for (EventIndex earlier : found_) {
    SiteId a = trace_.site[earlier];
    SiteId b = trace_.site[later];
    if (a > b) std::swap(a, b);
    const uint64_t key = (uint64_t{a} << 32) | b;
    auto [it, inserted] = by_sites_.try_emplace(key, races_.size());
    if (inserted) {
      races_.push_back(ClockRace{earlier, later, 1});
    } else {
      ++races_[it->second].occurrences;
    }
  }
}

}  // namespace pecan
