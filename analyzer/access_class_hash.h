// The hash of an access class's key (analysis_context.h's AccessClass) as the streaming searches
// keep it: thread, site, kind, held lock addresses (a HeldLocks set), and the bytes (0, 0 on a
// single-range location, where every access covers the location's). The key itself is in the
// class record; FlatIdTable compares it.
#pragma once

#include <cstdint>

#include "trace_format/trace.h"

namespace pecan {

inline uint64_t AccessClassHash(ThreadId thread, SiteId site, EventKind kind, uint32_t lockset,
                                uint64_t addr, uint32_t size) {
  uint64_t h = (uint64_t{thread} << 32 | site) * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t{lockset} << 8 | static_cast<uint8_t>(kind)) * 0xBF58476D1CE4E5B9ull;
  h ^= (addr + size) * 0xD6E8FEB86659FD93ull;
  return h ^ (h >> 31);
}

}  // namespace pecan
