// KeptAccesses' first pass in two stages (Key on one thread, Follow on another): what Decide
// makes of it is what Scan makes, however far the keys run ahead of the rest. The tests key every
// event before following any (the farthest a pass can run ahead), and in between.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "analyzer/access_locations.h"
#include "buffer_trace.h"
#include "mutated_trace.h"
#include "region_heavy_trace.h"
#include "tests/support/random_trace_generator.h"

using namespace pecan;

namespace {

// Everything Decide gives, and every event's answers after it.
struct Decided {
  std::vector<LocationInfo> locations;
  std::vector<std::pair<EventIndex, LocationId>> frees;
  std::vector<EventIndex> last_uses, last_accesses, last_new_classes;
  std::vector<uint32_t> key_counts;
  std::vector<AccessGuards> guards;
  std::vector<LocationId> located;  // per event: Locate
  std::vector<bool> last_of_bytes;  // per event: IsLastAccessOfBytes
};

Decided Decide(KeptAccesses& kept, const Trace& trace) {
  kept.Decide();
  Decided d{kept.Locations(),
            kept.Frees(),
            kept.LastUses(),
            kept.LastAccesses(),
            kept.LastNewClasses(),
            kept.KeyCounts(),
            kept.GuardsOf(),
            {},
            {}};
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    d.located.push_back(kept.Locate(i, trace.event(i)));
    d.last_of_bytes.push_back(kept.IsLastAccessOfBytes(i));
  }
  return d;
}

Decided Scanned(const Trace& trace) {
  KeptAccesses kept;
  kept.TrackClasses();
  kept.TrackGuards();
  for (EventIndex i = 0; i < trace.size_events(); ++i) kept.Scan(i, trace.event(i));
  return Decide(kept, trace);
}

// Keys run `ahead` events before the rest follows (the whole trace: every key first).
Decided InTwoStages(const Trace& trace, size_t ahead) {
  KeptAccesses kept;
  kept.TrackClasses();
  kept.TrackGuards();
  std::vector<KeptAccesses::ScanNote> notes;
  EventIndex followed = 0;
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    notes.push_back(kept.Key(i, trace.event(i)));
    for (; followed + ahead <= i; ++followed)
      kept.Follow(followed, trace.event(followed), notes[followed]);
  }
  for (; followed < trace.size_events(); ++followed)
    kept.Follow(followed, trace.event(followed), notes[followed]);
  return Decide(kept, trace);
}

void CheckSame(const Decided& got, const Decided& expected) {
  REQUIRE(got.locations.size() == expected.locations.size());
  for (size_t l = 0; l < got.locations.size(); ++l) {
    INFO("location " << l);
    const LocationInfo& a = got.locations[l];
    const LocationInfo& b = expected.locations[l];
    CHECK(a.begin == b.begin);
    CHECK(a.end == b.end);
    CHECK(a.version == b.version);
    CHECK(a.single_range == b.single_range);
    CHECK(a.shared == b.shared);
    CHECK(a.written == b.written);
    CHECK(a.read == b.read);
    const AccessGuards& g = got.guards[l];
    const AccessGuards& h = expected.guards[l];
    CHECK(g.guard == h.guard);
    CHECK(g.region_guard == h.region_guard);
    CHECK(g.region_thread == h.region_thread);
    CHECK(g.region_many_threads == h.region_many_threads);
    CHECK(g.locks_change_in_region == h.locks_change_in_region);
    CHECK(g.long_region == h.long_region);
  }
  CHECK(got.frees == expected.frees);
  CHECK(got.last_uses == expected.last_uses);
  CHECK(got.last_accesses == expected.last_accesses);
  CHECK(got.last_new_classes == expected.last_new_classes);
  CHECK(got.key_counts == expected.key_counts);
  CHECK(got.located == expected.located);
  CHECK(got.last_of_bytes == expected.last_of_bytes);
}

}  // namespace

TEST_CASE("the first pass in two stages decides what one scan decides",
          "[analysis][kept_accesses]") {
  test::RandomTraceOptions options;
  options.max_threads = 4;
  options.min_events = 30;
  options.max_events = 80;
  options.max_variables = 4;
  options.atomics = true;
  options.read_locks = true;
  options.thread_begin_end = true;
  const test::RandomTraceGenerator generator(options);
  uint64_t locations = 0, classes_end_early = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Trace trace = seed % 3 == 0   ? test::BufferHandoff(seed, 400)
                        : seed % 3 == 1 ? test::RegionHeavy(seed)
                                        : test::Mutated(generator.Generate(seed), seed);
    INFO("seed " << seed);
    const Decided expected = Scanned(trace);
    locations += expected.locations.size();
    for (size_t l = 0; l < expected.locations.size(); ++l)
      classes_end_early += expected.last_new_classes[l] < expected.last_accesses[l];
    for (const size_t ahead : {size_t{1}, size_t{7}, trace.size_events()}) {
      INFO("keys " << ahead << " events ahead");
      CheckSame(InTwoStages(trace, ahead), expected);
    }
  }
  // The traces must have locations whose classes the pass follows: their last new class comes
  // before their last access.
  CHECK(locations > 300);
  CHECK(classes_end_early > 100);
  WARN("locations " << locations << ", of them with an early last new class " << classes_end_early);
}
