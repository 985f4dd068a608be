// FlatU64Set, the first pass's set of access classes seen (key << 32 | stream): against a
// std::set under random inserts that grow it many times, with keys that share their low or high
// halves (the packed pairs it holds) and keys whose hashes meet in one slot.
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>

#include "analyzer/flat_hash_map.h"
#include "scrambler.h"

namespace pecan {
namespace {

TEST_CASE("FlatU64Set holds what a std::set holds as it grows") {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    Scrambler next(seed);
    FlatU64Set set(seed % 2 == 0 ? 1 : 16);
    std::set<uint64_t> model;
    for (int step = 0; step < 60000; ++step) {
      // Few distinct high halves (keys) and low halves (streams): many repeats and near misses.
      const uint64_t key = uint64_t{next() % 4000} << 32 | next() % 24;
      const bool fresh = model.insert(key).second;
      REQUIRE(set.Insert(key) == fresh);
      REQUIRE(set.size() == model.size());
      if (step % 97 == 0) {
        const uint64_t probe = uint64_t{next() % 4100} << 32 | next() % 26;
        REQUIRE(set.Contains(probe) == (model.count(probe) == 1));
      }
    }
    for (const uint64_t key : model) REQUIRE(set.Contains(key));
    REQUIRE_FALSE(set.Contains(uint64_t{4001} << 32));
  }
}

TEST_CASE("FlatU64Set tells apart keys that probe the same slots") {
  FlatU64Set set(2);  // grows from two slots: every key meets others
  for (uint64_t k = 0; k < 5000; ++k) REQUIRE(set.Insert(k * 0x100000000ull));
  for (uint64_t k = 0; k < 5000; ++k) REQUIRE_FALSE(set.Insert(k * 0x100000000ull));
  for (uint64_t k = 0; k < 5000; ++k) REQUIRE(set.Insert(k * 0x100000000ull + 1));
  REQUIRE(set.size() == 10000);
  REQUIRE(set.Contains(0));
  REQUIRE_FALSE(set.Contains(2));
  REQUIRE_FALSE(set.Contains(uint64_t{5000} << 32));
}

}  // namespace
}  // namespace pecan
