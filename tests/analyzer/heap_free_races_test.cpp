// A FREE is a write of its whole block (issue 19): an access of another thread unordered with it
// races with it, an ordered one does not, a reused address is a new block, and a big block costs
// what was accessed in it, not its size.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include "analyzer/access_locations.h"
#include "analyzer/analysis.h"
#include "analyzer/happens_before_races.h"
#include "analyzer/symbolizer.h"
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

constexpr uint64_t kBlock = 0x10000;
constexpr uint64_t kLock = 0x900;

std::vector<Finding> Races(const pecan::Trace& trace) {
  AnalysisOptions options;
  options.patterns = "race";
  return Analyze(trace, options).findings;
}

EventIndex Alloc(TraceBuilder& b, pecan::ThreadId t, uint64_t addr, uint32_t size,
                 pecan::SiteId site = 0) {
  return b.Add(t, EventKind::kAlloc, addr, size, 0, site);
}

EventIndex Free(TraceBuilder& b, pecan::ThreadId t, uint64_t addr, uint32_t size,
                pecan::SiteId site) {
  return b.Add(t, EventKind::kFree, addr, size, 0, site);
}

}  // namespace

TEST_CASE("Free as a write: a read of another thread unordered with the free races with it",
          "[analysis][heap]") {
  TraceBuilder b;
  Alloc(b, 0, kBlock, 16, 1);
  b.Fork(0, 1);
  const EventIndex read = b.Add(1, EventKind::kRead, kBlock + 8, 8, 0, 2);
  const EventIndex free = Free(b, 0, kBlock, 16, 3);
  const auto found = Races(b.trace());
  REQUIRE(found.size() == 1);
  CHECK(found[0].pattern == "race");
  CHECK(found[0].variant == "R-W");
  CHECK(found[0].events == Events{read, free});
  CHECK(b.trace().kind[found[0].events[1]] == EventKind::kFree);
  CHECK(found[0].observed);
  // The happens-before detector sees it too (hunt replays such races first).
  const auto hb = pecan::FindHappensBeforeRaces(b.trace());
  REQUIRE(hb.size() == 1);
  CHECK(hb[0].first == read);
  CHECK(hb[0].second == free);
}

TEST_CASE("Free as a write: an access after the free (use after free) races with it",
          "[analysis][heap]") {
  TraceBuilder b;
  Alloc(b, 0, kBlock, 16, 1);
  b.Fork(0, 1);
  b.Add(0, EventKind::kWrite, kBlock, 8, 0, 4);  // T0's own write: never races with its free
  const EventIndex free = Free(b, 0, kBlock, 16, 3);
  const EventIndex read = b.Add(1, EventKind::kRead, kBlock, 4, 0, 2);
  const auto found = Races(b.trace());
  REQUIRE(found.size() == 1);
  CHECK(found[0].variant == "W-R");
  CHECK(found[0].events == Events{free, read});
}

TEST_CASE("Free as a write: every field of the block races with it, the fields stay apart",
          "[analysis][heap][locations]") {
  TraceBuilder b;
  Alloc(b, 0, kBlock, 16, 1);
  b.Fork(0, 1);
  const EventIndex a = b.Add(1, EventKind::kWrite, kBlock, 8, 0, 2);
  const EventIndex c = b.Add(1, EventKind::kRead, kBlock + 8, 8, 0, 3);
  const EventIndex past = b.Add(1, EventKind::kRead, kBlock + 16, 8, 0, 5);  // another block
  const EventIndex past_write = b.Add(0, EventKind::kWrite, kBlock + 16, 8, 0, 6);
  const EventIndex free = Free(b, 0, kBlock, 16, 4);
  const LocationTable locations(b.trace());
  // Two locations for the two fields (two-variable patterns still tell them apart), each with
  // the FREE beside its accesses.
  REQUIRE(locations.Of(a) != pecan::kNoLocation);
  REQUIRE(locations.Of(c) != pecan::kNoLocation);
  CHECK(locations.Of(a) != locations.Of(c));
  CHECK(locations.Of(free) == pecan::kNoLocation);
  CHECK(Events(locations.FreesBegin(locations.Of(a)), locations.FreesEnd(locations.Of(a))) ==
        Events{free});
  std::vector<Events> races;
  for (const Finding& f : Races(b.trace())) races.push_back(f.events);
  std::sort(races.begin(), races.end());
  // The read past the block races with the write there, not with the free.
  CHECK(races == std::vector<Events>{{a, free}, {c, free}, {past, past_write}});
}

TEST_CASE("Free as a write: a free ordered with the access by a lock or a join does not race",
          "[analysis][heap]") {
  SECTION("a common lock") {
    TraceBuilder b;
    Alloc(b, 0, kBlock, 16, 1);
    b.Fork(0, 1);
    b.Lock(1, kLock);
    b.Add(1, EventKind::kRead, kBlock, 8, 0, 2);
    b.Unlock(1, kLock);
    b.Lock(0, kLock);
    Free(b, 0, kBlock, 16, 3);
    b.Unlock(0, kLock);
    CHECK(Races(b.trace()).empty());
  }
  SECTION("a join") {
    TraceBuilder b;
    Alloc(b, 0, kBlock, 16, 1);
    b.Fork(0, 1);
    b.Add(1, EventKind::kRead, kBlock, 8, 0, 2);
    b.End(1);
    b.Join(0, 1);
    Free(b, 0, kBlock, 16, 3);
    CHECK(Races(b.trace()).empty());
    CHECK(pecan::FindHappensBeforeRaces(b.trace()).empty());
  }
}

TEST_CASE("Free as a write: the old block's accesses do not race with the new block's",
          "[analysis][heap]") {
  // T1 uses and frees a block; T2 then gets the same address from malloc and uses it. Nothing
  // orders T1 and T2 but the allocator: the two blocks are two lives of the bytes.
  TraceBuilder b;
  b.Fork(0, 1);
  b.Fork(0, 2);
  Alloc(b, 1, kBlock, 16, 1);
  b.Add(1, EventKind::kWrite, kBlock, 8, 0, 2);
  Free(b, 1, kBlock, 16, 3);
  Alloc(b, 2, kBlock, 16, 4);
  b.Add(2, EventKind::kWrite, kBlock, 8, 0, 5);
  b.Add(2, EventKind::kRead, kBlock + 8, 8, 0, 6);
  Free(b, 2, kBlock, 16, 7);
  CHECK(Races(b.trace()).empty());
  CHECK(pecan::FindHappensBeforeRaces(b.trace()).empty());
}

TEST_CASE("Free as a write: a block of a gigabyte costs its accesses, not its bytes",
          "[analysis][heap]") {
  constexpr uint32_t kSize = 1u << 30;
  TraceBuilder b;
  Alloc(b, 0, kBlock, kSize, 1);
  b.Fork(0, 1);
  for (uint64_t k = 0; k < 1000; ++k)
    b.Add(1, EventKind::kRead, kBlock + k * (kSize / 1000), 8, 0, 2);
  const EventIndex free = Free(b, 0, kBlock, kSize, 3);
  const auto start = std::chrono::steady_clock::now();
  const auto found = Races(b.trace());
  const auto hb = pecan::FindHappensBeforeRaces(b.trace());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(found.size() == 1);  // one site pair
  CHECK(found[0].events == Events{free - 1, free});
  CHECK(hb.size() == 1);
  CHECK(seconds < 5.0);
}

TEST_CASE("Heap blocks: reports name heap memory by its block and allocation site",
          "[analysis][heap][report]") {
  TraceBuilder b;
  const EventIndex alloc = Alloc(b, 0, kBlock, 16, 1);
  b.Fork(0, 1);
  const EventIndex read = b.Add(1, EventKind::kRead, kBlock + 8, 8, 0, 2);
  const EventIndex free = Free(b, 0, kBlock, 24, 3);  // FREE carries the usable size
  const EventIndex again = Alloc(b, 1, kBlock, 32, 4);
  const EventIndex write = b.Add(1, EventKind::kWrite, kBlock, 8, 0, 5);
  const EventIndex outside = b.Add(1, EventKind::kWrite, kBlock + 64, 8, 0, 6);
  pecan::Symbolizer symbolizer(b.trace());
  CHECK(symbolizer.NameOfEventAddress(read) ==
        "byte 8 of a heap block of 16 bytes allocated by T0 at loc 1");
  CHECK(symbolizer.NameOfEventAddress(free) == "heap block of 16 bytes allocated by T0 at loc 1");
  CHECK(symbolizer.NameOfEventAddress(alloc) == "heap block of 16 bytes allocated by T0 at loc 1");
  CHECK(symbolizer.NameOfEventAddress(again) == "heap block of 32 bytes allocated by T1 at loc 4");
  CHECK(symbolizer.NameOfEventAddress(write) == "heap block of 32 bytes allocated by T1 at loc 4");
  CHECK_FALSE(symbolizer.NameOfEventAddress(outside).has_value());
  CHECK_FALSE(symbolizer.NameOfEventAddress(1).has_value());  // the fork names no memory
}

TEST_CASE(
    "Allocation versions: a block's new life is a new location wherever the access falls "
    "in it, and a block elsewhere changes nothing",
    "[analysis][heap][locations]") {
  // The first pass checks an address's allocation version again only when a FREE or ALLOC may
  // have painted its page (or painted many pages at once): blocks of one page, of a few pages
  // and of 256 pages (1 MiB), each accessed in its last word, freed and allocated again.
  for (const uint32_t size : {16u, 3u * 4096u, 1u << 20}) {
    CAPTURE(size);
    const uint64_t block = 0x40000000;
    const uint64_t word = block + size - 8;
    const uint64_t elsewhere = 0x7000000;  // another page, far from the block's
    TraceBuilder b;
    b.Fork(0, 1);
    b.Fork(0, 2);
    Alloc(b, 0, block, size, 1);
    const EventIndex w1 = b.Add(1, EventKind::kWrite, word, 8, 0, 2);
    Alloc(b, 0, elsewhere, 64, 3);
    Free(b, 0, elsewhere, 64, 4);
    const EventIndex r1 = b.Add(2, EventKind::kRead, word, 8, 0, 5);
    Free(b, 0, block, size, 6);
    Alloc(b, 0, block, size, 1);
    const EventIndex w2 = b.Add(1, EventKind::kWrite, word, 8, 0, 2);
    const EventIndex r2 = b.Add(2, EventKind::kRead, word, 8, 0, 5);
    const pecan::Trace& trace = b.trace();

    const LocationTable table(trace);
    REQUIRE(table.Of(w1) != pecan::kNoLocation);
    REQUIRE(table.Of(w2) != pecan::kNoLocation);
    CHECK(table.Of(r1) == table.Of(w1));  // the block elsewhere did not start a new life here
    CHECK(table.Of(r2) == table.Of(w2));
    CHECK(table.Of(w2) != table.Of(w1));
    CHECK(table.Info(table.Of(w2)).version != table.Info(table.Of(w1)).version);

    // The streaming first pass and its second one give every access the same location.
    pecan::KeptAccesses kept;
    for (EventIndex i = 0; i < trace.size_events(); ++i) kept.Scan(i, trace.event(i));
    kept.Decide();
    for (EventIndex i = 0; i < trace.size_events(); ++i) {
      CAPTURE(i);
      CHECK(kept.Locate(i, trace.event(i)) == table.Of(i));
    }
  }
}
