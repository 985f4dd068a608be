// Two accesses conflict only when their byte ranges overlap (issue 4): a location merges ranges
// transitively, so disjoint accesses can share one, and pairing must check the ranges — for
// races, atomicity violations and ASV patterns alike.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <string>
#include <tuple>

#include "analyzer/access_locations.h"
#include "analyzer/analysis.h"
#include "trace_builder.h"

using pecan::AnalysisOptions;
using pecan::Analyze;
using pecan::EventIndex;
using pecan::EventKind;
using pecan::Finding;
using pecan::LocationTable;
using pecan::testing::TraceBuilder;

namespace {

using Events = std::vector<EventIndex>;

std::vector<Finding> Find(const pecan::Trace& trace, const std::string& patterns) {
  AnalysisOptions options;
  options.patterns = patterns;
  return Analyze(trace, options).findings;
}

std::vector<Events> EventsOf(const std::vector<Finding>& findings) {
  std::vector<Events> out;
  for (const Finding& f : findings) out.push_back(f.events);
  return out;
}

}  // namespace

TEST_CASE("Byte ranges: disjoint writes merged into one location by a wide read do not race",
          "[analysis][locations]") {
  TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Add(1, EventKind::kWrite, 0x1000, 8, 0, 1);  // 2: T1 writes [0x1000, 0x1008)
  b.Add(2, EventKind::kWrite, 0x1008, 8, 0, 2);  // 3: T2 writes [0x1008, 0x1010)
  b.Join(0, 1);
  b.Join(0, 2);
  b.Add(0, EventKind::kRead, 0x1000, 16, 0, 3);  // 6: T0 reads both, after the joins
  const pecan::Trace& trace = b.trace();
  // The three accesses form one location (the read overlaps both writes) ...
  const LocationTable locations(trace);
  REQUIRE(locations.Count() == 1);
  CHECK(locations.Of(2) == locations.Of(3));
  CHECK_FALSE(locations.Info(0).single_range);
  // ... but T1's and T2's writes touch no common byte, and T0's read is ordered after both.
  CHECK(Find(trace, "race").empty());
  CHECK(Find(trace, "all").empty());
}

TEST_CASE("Byte ranges: partially overlapping writes still race", "[analysis][locations]") {
  TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Add(1, EventKind::kWrite, 0x1000, 8, 0, 1);  // 2: [0x1000, 0x1008)
  b.Add(2, EventKind::kWrite, 0x1004, 8, 0, 2);  // 3: [0x1004, 0x100c): bytes 4..7 shared
  b.Join(0, 1);
  b.Join(0, 2);
  b.Add(0, EventKind::kRead, 0x1000, 16, 0, 3);
  const auto races = Find(b.trace(), "race");
  REQUIRE(races.size() == 1);
  CHECK(races[0].variant == "W-W");
  CHECK(races[0].events == Events{2, 3});
  CHECK(races[0].observed);
}

TEST_CASE("Byte ranges: the witness of a site pair touches the other access's bytes",
          "[analysis][locations]") {
  // T1 writes two elements at one site (a loop); only the first overlaps T2's write. The last
  // T1 write before T2's is the other element: it must not be taken as the race's witness.
  TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Add(1, EventKind::kWrite, 0x1008, 8, 0, 1);  // 2: overlaps T2's write
  b.Add(1, EventKind::kWrite, 0x1000, 8, 0, 1);  // 3: does not
  b.Add(2, EventKind::kWrite, 0x1008, 8, 0, 2);  // 4
  b.Join(0, 1);
  b.Join(0, 2);
  b.Add(0, EventKind::kRead, 0x1000, 16, 0, 3);
  const auto races = Find(b.trace(), "race");
  REQUIRE(races.size() == 1);
  CHECK(races[0].events == Events{2, 4});
  // Event 3 lies between them in the location's accesses: not adjacent, so predicted.
  CHECK_FALSE(races[0].observed);
}

TEST_CASE("Byte ranges: atomicity needs the interleaving write on the region's bytes",
          "[analysis][locations]") {
  auto trace = [](uint64_t t1_write) {
    TraceBuilder b;
    b.Fork(0, 1);
    b.Lock(0, 0x9000);
    b.Add(0, EventKind::kRead, 0x1000, 8, 0, 1);     // 2
    b.Add(0, EventKind::kRead, 0x1008, 8, 0, 2);     // 3: the next element, other bytes
    b.Add(1, EventKind::kWrite, t1_write, 8, 0, 3);  // 4: T1, no lock
    b.Add(0, EventKind::kRead, 0x1000, 8, 0, 4);     // 5
    b.Unlock(0, 0x9000);
    b.Join(0, 1);
    b.Add(0, EventKind::kWrite, 0x1000, 16, 0, 5);  // merges everything into one location
    return b.trace();
  };
  // T1 writes the next element, [0x1008, 0x1010): no byte of it is read twice in the region
  // (only event 3 reads it), so no triple is unserializable.
  const auto other_element = Find(trace(0x1008), "atomicity");
  CHECK(EventsOf(other_element).empty());
  // T1 writes the element both reads of event 2 and 5 touch: R-W-R on [0x1000, 0x1008), with
  // event 3 (other bytes) not counting as an access between them.
  const auto same_element = Find(trace(0x1000), "atomicity");
  REQUIRE(same_element.size() == 1);
  CHECK(same_element[0].variant == "R-W-R");
  CHECK(same_element[0].events == Events{2, 4, 5});
  CHECK(same_element[0].observed);
}

TEST_CASE("Byte ranges: a single-range location pairs every access as before",
          "[analysis][locations]") {
  TraceBuilder b;
  b.Write(0, 0x1000, 1);
  b.Write(1, 0x1000, 2);
  const LocationTable locations(b.trace());
  REQUIRE(locations.Count() == 1);
  CHECK(locations.Info(0).single_range);
  CHECK(EventsOf(Find(b.trace(), "race")) == std::vector<Events>{{0, 1}});
}

// A buffer that one wide access merges into one location, touched by three threads at hundreds
// of sites: far more access classes than the search pairs one by one (it indexes them by byte
// range). Its races are exactly the pairs a brute-force scan of the trace finds: accesses of
// different threads to a common byte, one a write, not both under the lock.
TEST_CASE("Byte ranges: a buffer with hundreds of classes races exactly where bytes meet",
          "[analysis][locations]") {
  constexpr uint64_t kBuffer = 0x10000, kBytes = 512, kLock = 0x9000;
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 random(seed);
    TraceBuilder b;
    for (pecan::ThreadId t = 1; t <= 3; ++t) b.Fork(0, t);
    struct Access {
      EventIndex event;
      bool locked;
    };
    std::vector<Access> accesses;
    const uint32_t sizes[] = {1, 2, 4, 8, 16, 64};
    for (int step = 0; step < 600; ++step) {
      const pecan::ThreadId t = 1 + random() % 3;
      const uint32_t size = sizes[random() % 6];
      const uint64_t offset = random() % (kBytes - size + 1);
      const EventKind kind = random() % 2 ? EventKind::kWrite : EventKind::kRead;
      const pecan::SiteId site = 10 + random() % 400;
      const bool locked = random() % 10 < 3;
      if (locked) b.Lock(t, kLock);
      accesses.push_back({b.Add(t, kind, kBuffer + offset, size, 0, site), locked});
      if (locked) b.Unlock(t, kLock);
    }
    for (pecan::ThreadId t = 1; t <= 3; ++t) b.Join(0, t);
    b.Add(0, EventKind::kRead, kBuffer, kBytes, 0, 5);  // merges the buffer into one location
    const pecan::Trace& trace = b.trace();
    REQUIRE(LocationTable(trace).Count() == 1);

    std::set<std::tuple<std::string, pecan::SiteId, pecan::SiteId>> expected, found;
    auto letter = [&](EventIndex e) { return pecan::IsWriteAccess(trace.kind[e]) ? "W" : "R"; };
    for (size_t i = 0; i < accesses.size(); ++i) {
      for (size_t j = i + 1; j < accesses.size(); ++j) {
        const EventIndex x = accesses[i].event, y = accesses[j].event;
        if (trace.thread[x] == trace.thread[y]) continue;
        if (trace.kind[x] == EventKind::kRead && trace.kind[y] == EventKind::kRead) continue;
        if (accesses[i].locked && accesses[j].locked) continue;
        if (trace.addr[x] >= trace.addr[y] + trace.size[y] ||
            trace.addr[y] >= trace.addr[x] + trace.size[x])
          continue;
        expected.emplace(std::string(letter(x)) + "-" + letter(y), trace.site[x], trace.site[y]);
      }
    }
    for (const Finding& f : Find(trace, "race"))
      found.emplace(f.variant, trace.site[f.events[0]], trace.site[f.events[1]]);
    INFO("seed " << seed);
    CHECK(expected.size() > 1000);
    CHECK(found == expected);
  }
}

TEST_CASE("Byte ranges: accesses at one address with different sizes keep their own bytes",
          "[analysis][locations]") {
  TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  b.Add(1, EventKind::kWrite, 0x1000, 1, 0, 1);  // 2: T1 writes [0x1000, 0x1001)
  b.Add(2, EventKind::kWrite, 0x1000, 8, 0, 2);  // 3: T2 writes [0x1000, 0x1008)
  b.Add(1, EventKind::kRead, 0x1004, 4, 0, 3);   // 4: T1 reads [0x1004, 0x1008)
  b.Add(2, EventKind::kWrite, 0x1000, 1, 0, 4);  // 5: T2 writes [0x1000, 0x1001)
  const pecan::Trace& trace = b.trace();
  // The 8-byte write joins the read's bytes to the 1-byte writes' location.
  const LocationTable locations(trace);
  REQUIRE(locations.Count() == 1);
  CHECK(locations.Info(0).begin == 0x1000);
  CHECK(locations.Info(0).end == 0x1008);
  CHECK(locations.AccessCount(0) == 4);
  // T2's 8-byte write races with T1's write and read, and T1's write with T2's second write.
  const std::set<std::pair<EventIndex, EventIndex>> expected{{2, 3}, {3, 4}, {2, 5}};
  std::set<std::pair<EventIndex, EventIndex>> got;
  for (const Events& events : EventsOf(Find(trace, "race"))) got.emplace(events[0], events[1]);
  CHECK(got == expected);
}
