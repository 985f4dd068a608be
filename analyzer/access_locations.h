// LocationTable maps every memory access to the shared location (variable) it touches: byte
// ranges with an allocation version, merged where they overlap, kept only when shared and written.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

using LocationId = uint32_t;
inline constexpr LocationId kNoLocation = ~LocationId{0};

struct LocationInfo {
  uint64_t begin = 0;    // first byte
  uint64_t end = 0;      // one past the last byte
  uint32_t version = 0;  // allocation version: 0 before any FREE/ALLOC of these bytes
};

// A location is a maximal set of accesses whose byte ranges overlap (transitively) within one
// allocation version. FREE and ALLOC start a new version of their range, so a reused address is
// a new location. Locations accessed by one thread only, or only read, are dropped: no pattern
// of interest can form on them. Access sizes of 0 count as 1 byte.
class LocationTable {
 public:
  explicit LocationTable(const Trace& trace);
  ~LocationTable();
  LocationTable(LocationTable&&) noexcept;

  // The shared location of access i, or kNoLocation (not an access, or not shared).
  LocationId Of(EventIndex i) const { return of_[i]; }
  size_t Count() const;  // shared locations; ids are 0 .. Count()-1
  const LocationInfo& Info(LocationId l) const;
  // The accesses to l, in trace order.
  const EventIndex* AccessesBegin(LocationId l) const;
  const EventIndex* AccessesEnd(LocationId l) const;
  uint64_t AccessCount(LocationId l) const { return AccessesEnd(l) - AccessesBegin(l); }
  // Every distinct location seen, shared or not (for statistics).
  uint64_t AllLocations() const;
  // Accesses to shared locations.
  uint64_t SharedAccesses() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  const LocationId* of_ = nullptr;  // view into impl_ for the inline Of()
};

}  // namespace pecan
