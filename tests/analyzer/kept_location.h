// ScanAndLocate: the first pass of KeptAccesses over a whole trace, for the tests of what it
// notes per kept location.
#pragma once

#include <catch2/catch.hpp>

#include "analyzer/access_locations.h"
#include "trace_format/trace.h"

namespace pecan::test {

// Scans `trace` into `kept` (its tracking already chosen), decides, and locates every event in
// order: the location of access `i`, which must be kept.
inline LocationId ScanAndLocate(KeptAccesses& kept, const Trace& trace, EventIndex i) {
  for (EventIndex k = 0; k < trace.size_events(); ++k) kept.Scan(k, trace.event(k));
  kept.Decide();
  LocationId l = kNoLocation;
  for (EventIndex k = 0; k < trace.size_events(); ++k) {
    const LocationId at = kept.Locate(k, trace.event(k));
    if (k == i) l = at;
  }
  REQUIRE(l != kNoLocation);
  return l;
}

}  // namespace pecan::test
