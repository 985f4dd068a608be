// The key of an access class (analysis_context.h's AccessClass) as the streaming searches keep
// it: thread, site, kind, held lock addresses (a HeldLocks set) and bytes (the location's on a
// single-range location, where every access covers them; the access's otherwise). The searches'
// class records carry the same fields; AccessClassIds numbers the classes (the race search
// numbers its own: ClassIndex).
#pragma once

#include <algorithm>
#include <cstdint>

#include "analyzer/access_locations.h"
#include "analyzer/flat_hash_map.h"
#include "trace_format/trace.h"

namespace pecan {

struct AccessClassKey {
  uint64_t begin = 0;  // the bytes every member accesses: [begin, end)
  uint64_t end = 0;
  ThreadId thread = 0;
  SiteId site = 0;
  EventKind kind = EventKind::kUnspecified;
  uint32_t lockset = 0;

  // The key of access `e`, made holding `lockset`, on a location `info` describes.
  static AccessClassKey Of(const Event& e, uint32_t lockset, const LocationInfo& info) {
    const bool single = info.single_range;
    return AccessClassKey{single ? info.begin : e.addr,
                          single ? info.end : e.addr + std::max<uint32_t>(e.size, 1),
                          e.thread,
                          e.site,
                          e.kind,
                          lockset};
  }

  bool operator==(const AccessClassKey&) const = default;

  // A hash of the key, all 64 bits mixed (ClassIndex uses the low 32).
  uint64_t Hash() const {
    uint64_t h = (uint64_t{thread} << 32 | site) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t{lockset} << 8 | static_cast<uint8_t>(kind)) * 0xBF58476D1CE4E5B9ull;
    h ^= begin + 0x9E3779B97F4A7C15ull * (end - begin);
    return MixHash(h);
  }
};

}  // namespace pecan
