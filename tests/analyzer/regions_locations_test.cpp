// Atomic regions (locks, annotations, functions, boundaries) and shared locations (overlap,
// versions, the shared/written filter).
#include <catch2/catch.hpp>

#include "analyzer/access_locations.h"
#include "analyzer/analysis.h"
#include "analyzer/atomic_regions.h"
#include "std_trace.h"
#include "trace_builder.h"

using pecan::EventIndex;
using pecan::kNoLocation;
using pecan::kNoRegion;
using pecan::LocationTable;
using pecan::RegionMode;
using pecan::RegionTable;
using pecan::testing::StdTrace;
using pecan::testing::TraceBuilder;

TEST_CASE("Regions: outermost critical section, nested locks merge", "[regions]") {
  const auto trace = StdTrace(R"(T0|r(x)|1
T0|acq(a)|2
T0|r(x)|3
T0|acq(b)|4
T0|rel(a)|5
T0|w(x)|6
T0|rel(b)|7
T0|w(x)|8
)");
  RegionTable regions(trace, RegionMode::kLocks);
  CHECK(regions.Of(0) == kNoRegion);
  const auto r = regions.Of(1);
  REQUIRE(r != kNoRegion);
  for (EventIndex i = 1; i <= 6; ++i) CHECK(regions.Of(i) == r);  // a and b overlap: one region
  CHECK(regions.Of(7) == kNoRegion);
  CHECK(regions.First(r) == 1);
  CHECK(regions.Last(r) == 6);
  CHECK(regions.Count() == 1);
}

TEST_CASE("Regions: wait and notify end a region, annotations open one", "[regions]") {
  const auto trace = StdTrace(R"(T0|acq(m)|1
T0|r(x)|2
T0|notify(c)|3
T0|w(x)|4
T0|rel(m)|5
T0|begin(r)|6
T0|r(y)|7
T0|fork(T1)|8
T0|w(y)|9
T0|end(r)|10
)");
  RegionTable regions(trace, RegionMode::kLocks);
  CHECK(regions.Of(0) == regions.Of(1));
  CHECK(regions.Of(2) == kNoRegion);
  CHECK(regions.Of(3) != regions.Of(1));
  CHECK(regions.Of(3) == regions.Of(4));
  CHECK(regions.Of(5) == regions.Of(6));
  CHECK(regions.Of(7) == kNoRegion);
  CHECK(regions.Of(8) == regions.Of(9));
  CHECK(regions.Of(8) != regions.Of(6));
  CHECK(regions.Count() == 4);
}

TEST_CASE("Regions: function invocations below the thread's root", "[regions]") {
  const auto trace = StdTrace(R"(T0|enter(main)|1
T0|enter(check)|2
T0|r(x)|3
T0|acq(m)|4
T0|w(x)|5
T0|rel(m)|6
T0|exit(check)|7
T0|w(x)|8
T0|exit(main)|9
)");
  RegionTable locks(trace, RegionMode::kLocks);
  RegionTable functions(trace, RegionMode::kFunctions);
  CHECK(locks.Of(2) == kNoRegion);
  CHECK(locks.Of(4) != kNoRegion);
  CHECK(functions.Of(0) == kNoRegion);  // main is the root, not a region
  const auto check = functions.Of(1);
  REQUIRE(check != kNoRegion);
  for (EventIndex i = 1; i <= 6; ++i) CHECK(functions.Of(i) == check);
  CHECK(functions.Of(7) == kNoRegion);
  CHECK(functions.Of(8) == kNoRegion);
}

TEST_CASE("Regions: without an instrumented root every top-level call is a region", "[regions]") {
  const auto trace = StdTrace(R"(T0|enter(f)|1
T0|r(x)|2
T0|exit(f)|3
T0|enter(g)|4
T0|w(x)|5
T0|exit(g)|6
)");
  RegionTable functions(trace, RegionMode::kFunctions);
  CHECK(functions.Of(1) != kNoRegion);
  CHECK(functions.Of(4) != kNoRegion);
  CHECK(functions.Of(1) != functions.Of(4));
}

TEST_CASE("Function regions find check-then-act that lock regions miss", "[regions][analysis]") {
  // T0's check() reads x under m, then writes x under m again: two critical sections, one call.
  const std::string text = R"(T0|enter(main)|1
T0|fork(T1)|2
T0|enter(check)|3
T0|acq(m)|4
T0|r(x)|5
T0|rel(m)|6
T0|acq(m)|7
T0|w(x)|8
T0|rel(m)|9
T0|exit(check)|10
T0|exit(main)|11
T1|acq(m)|12
T1|w(x)|13
T1|rel(m)|14
)";
  pecan::AnalysisOptions options;
  options.patterns = "atomicity";
  options.regions = RegionMode::kLocks;
  CHECK(pecan::Analyze(StdTrace(text), options).findings.empty());
  options.regions = RegionMode::kFunctions;
  const auto found = pecan::Analyze(StdTrace(text), options).findings;
  REQUIRE(found.size() == 1);
  CHECK(found[0].variant == "R-W-W");
  CHECK(found[0].events == std::vector<EventIndex>{4, 12, 7});
  // x can slip in after T0's first critical section: T1's write moves before T0's acq(m).
  CHECK(found[0].overtaken == std::vector<EventIndex>{6});
}

TEST_CASE("Locations: overlapping ranges merge, versions split, filter drops private data",
          "[locations]") {
  TraceBuilder b;
  b.Add(0, pecan::EventKind::kWrite, 0x1000, 8, 0, 0);  // 0: [0x1000, 0x1008)
  b.Add(1, pecan::EventKind::kRead, 0x1004, 4, 0, 0);   // 1: overlaps 0
  b.Add(1, pecan::EventKind::kRead, 0x1008, 4, 0, 0);   // 2: adjacent, not overlapping
  b.Add(0, pecan::EventKind::kWrite, 0x1008, 1, 0, 0);  // 3: overlaps 2
  b.Add(0, pecan::EventKind::kWrite, 0x2000, 8, 0, 0);  // 4: private to T0
  b.Add(0, pecan::EventKind::kRead, 0x3000, 8, 0, 0);   // 5: only read
  b.Add(1, pecan::EventKind::kRead, 0x3000, 8, 0, 0);   // 6
  b.Free(0, 0x1000, 16);                                // 7
  b.Add(1, pecan::EventKind::kWrite, 0x1000, 8, 0, 0);  // 8: new version, T1 only, after
                                                        //    T0's free: a use after free
  b.Free(1, 0x4000, 8);                                 // 9
  b.Add(1, pecan::EventKind::kWrite, 0x4000, 8, 0, 0);  // 10: freed by its only user
  const auto& trace = b.trace();
  LocationTable locations(trace);
  CHECK(locations.Count() == 3);
  CHECK(locations.Of(0) == locations.Of(1));
  CHECK(locations.Of(2) == locations.Of(3));
  CHECK(locations.Of(0) != locations.Of(2));
  CHECK(locations.Of(4) == kNoLocation);
  CHECK(locations.Of(5) == kNoLocation);
  CHECK(locations.Of(7) == kNoLocation);
  // T0's free is a write of the block: T1's write after it shares the new version with it.
  REQUIRE(locations.Of(8) != kNoLocation);
  CHECK(locations.Of(8) != locations.Of(0));
  CHECK(std::vector<pecan::EventIndex>(locations.FreesBegin(locations.Of(8)),
                                       locations.FreesEnd(locations.Of(8))) ==
        std::vector<pecan::EventIndex>{7});
  CHECK(locations.Of(10) == kNoLocation);
  CHECK(locations.AllLocations() == 6);
  CHECK(locations.Info(locations.Of(0)).begin == 0x1000);
  CHECK(locations.Info(locations.Of(0)).end == 0x1008);
  CHECK(locations.AccessCount(locations.Of(2)) == 2);
  CHECK(locations.SharedAccesses() == 5);
}
