// AccessStream: what an access class (analysis_context.h) has besides its bytes: its thread,
// site, kind and held lock addresses (a HeldLocks set). A program has few (threads × sites × lock
// sets), so tables that hold millions of classes number them (StreamIds) and keep the number.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/flat_hash_map.h"
#include "trace_format/trace.h"

namespace pecan {

struct AccessStream {
  ThreadId thread = 0;
  SiteId site = 0;
  uint32_t lockset = 0;
  EventKind kind = EventKind::kUnspecified;
  bool operator==(const AccessStream&) const = default;
};

struct AccessStreamHash {
  size_t operator()(const AccessStream& c) const {
    const uint64_t h = (uint64_t{c.thread} << 32 | c.site) * 0x9E3779B97F4A7C15ull;
    return MixHash(h ^ (uint64_t{c.lockset} << 8 | static_cast<uint8_t>(c.kind)));
  }
};

// Numbers streams in order of first use.
class StreamIds {
 public:
  uint32_t Of(const AccessStream& stream) {
    bool inserted = false;
    const auto next = static_cast<uint32_t>(streams_.size());
    const uint32_t id = ids_.FindOrInsert(stream, next, &inserted);
    if (inserted) streams_.push_back(stream);
    return id;
  }
  const AccessStream& operator[](uint32_t id) const { return streams_[id]; }

 private:
  FlatHashMap<AccessStream, uint32_t, AccessStreamHash> ids_ =
      FlatHashMap<AccessStream, uint32_t, AccessStreamHash>(64);
  std::vector<AccessStream> streams_;
};

}  // namespace pecan
