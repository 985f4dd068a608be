// ClassesSeen, the first pass's set of access classes seen, (key, stream) pairs: against a
// std::set under random inserts over many pages, in 4-byte slots while the streams stay below the
// bound, and once one past it comes (a bound lowered here), in one set of whole pairs that still
// knows every pair seen before. FlatSet's 32-bit slots against a std::set (the pages' RowSet has
// tests of its own).
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>
#include <utility>

#include "analyzer/classes_seen.h"
#include "analyzer/flat_hash_map.h"
#include "scrambler.h"

namespace pecan {
namespace {

TEST_CASE("ClassesSeen holds what a std::set holds, in pages and past the stream bound") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Scrambler next(seed);
    // Seeds 1-3: streams stay below the bound. Seeds 4-6: a bound of 40, passed midway.
    const bool passes = seed > 3;
    ClassesSeen seen(passes ? 40 : ClassesSeen::kPackedStreams);
    std::set<std::pair<uint32_t, uint32_t>> model;
    bool passed = false;  // a stream past the bound came
    for (int step = 0; step < 40000; ++step) {
      // Keys over some 40 pages and streams with repeats; the largest streams the packing holds.
      const uint32_t key = next() % 10000;
      uint32_t stream = next() % 30;
      if (!passes && step % 13 == 0) stream = ClassesSeen::kPackedStreams - 1 - next() % 2;
      if (passes && step >= 20000 && step % 7 == 0) stream = 40 + next() % 5;
      const bool fresh = model.insert({key, stream}).second;
      REQUIRE(seen.Insert(key, stream) == fresh);
      // Unpacked from the first stream past the bound on.
      passed |= passes && stream >= 40;
      REQUIRE(seen.unpacked() == passed);
    }
    CHECK(seen.unpacked() == passes);
    // Every pair is still known: inserting it again says so.
    for (const auto& [key, stream] : model) REQUIRE_FALSE(seen.Insert(key, stream));
  }
}

TEST_CASE("a page's slot keeps the key's place and the stream apart") {
  ClassesSeen seen;
  // The last key of a page with the largest stream packed: every bit of the slot but none is
  // kEmpty's.
  REQUIRE(seen.Insert(255, ClassesSeen::kPackedStreams - 1));
  REQUIRE(seen.Insert(254, ClassesSeen::kPackedStreams - 1));
  REQUIRE(seen.Insert(255, ClassesSeen::kPackedStreams - 2));
  REQUIRE(seen.Insert(511, ClassesSeen::kPackedStreams - 1));  // the same place, the next page
  REQUIRE(seen.Insert(0, 0));
  REQUIRE(seen.Insert(256, 0));
  REQUIRE_FALSE(seen.Insert(255, ClassesSeen::kPackedStreams - 1));
  REQUIRE_FALSE(seen.Insert(511, ClassesSeen::kPackedStreams - 1));
  REQUIRE_FALSE(seen.Insert(256, 0));
  REQUIRE_FALSE(seen.unpacked());
  // The bound itself unpacks, and what came before is still known.
  REQUIRE(seen.Insert(7, ClassesSeen::kPackedStreams));
  REQUIRE(seen.unpacked());
  REQUIRE_FALSE(seen.Insert(255, ClassesSeen::kPackedStreams - 1));
  REQUIRE_FALSE(seen.Insert(0, 0));
  REQUIRE(seen.Insert(255, ClassesSeen::kPackedStreams));
  REQUIRE_FALSE(seen.Insert(7, ClassesSeen::kPackedStreams));
}

TEST_CASE("FlatSet of 32-bit keys holds what a std::set holds as it grows") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Scrambler next(seed);
    FlatSet<uint32_t> set(seed % 2 == 0 ? 1 : 16);
    std::set<uint32_t> model;
    for (int step = 0; step < 50000; ++step) {
      const uint32_t key = (next() % 200) << 24 | next() % 300;
      const bool fresh = model.insert(key).second;
      REQUIRE(set.Insert(key) == fresh);
      REQUIRE(set.size() == model.size());
    }
    std::set<uint32_t> listed;
    set.ForEach([&](uint32_t key) { REQUIRE(listed.insert(key).second); });
    REQUIRE(listed == model);
  }
}

}  // namespace
}  // namespace pecan
