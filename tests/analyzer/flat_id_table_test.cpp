// FlatIdTable, the index of the race search's classes (ClassIndex) and of AccessClassIds: against
// a std::map under random keys that grow it many times from a few slots, with hashes that meet in
// one slot and keys that share a hash, which only `same` tells apart.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <vector>

#include "analyzer/flat_hash_map.h"
#include "scrambler.h"

namespace pecan {
namespace {

TEST_CASE("FlatIdTable numbers what a std::map numbers as it grows") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Scrambler next(seed);
    FlatIdTable table(seed % 2 == 0 ? 1 : 8);
    std::map<uint64_t, uint32_t> model;
    std::vector<uint64_t> key_of;  // by id
    // Keys share a hash in pairs (key / 2): `same` must tell them apart.
    const auto hash = [](uint64_t key) { return key / 2; };
    for (int step = 0; step < 50000; ++step) {
      const uint64_t key = next() % 30000;
      bool inserted = false;
      const auto next_id = static_cast<uint32_t>(key_of.size());
      const uint32_t id = table.FindOrAdd(
          hash(key), next_id, [&](uint32_t k) { return key_of[k] == key; }, &inserted);
      const auto known = model.find(key);
      REQUIRE(inserted == (known == model.end()));
      if (inserted) {
        REQUIRE(id == next_id);
        model.emplace(key, id);
        key_of.push_back(key);
      } else {
        REQUIRE(id == known->second);
      }
    }
    for (const auto& entry : model) {
      const uint64_t key = entry.first;
      REQUIRE(table.Find(hash(key), [&](uint32_t k) { return key_of[k] == key; }) == entry.second);
    }
    REQUIRE(table.Find(hash(30001), [&](uint32_t k) { return key_of[k] == 30001; }) ==
            FlatIdTable::kNoId);
  }
}

TEST_CASE("FlatIdTable tells apart keys whose hashes probe the same slots") {
  FlatIdTable table(2);
  std::vector<uint64_t> key_of;
  for (uint64_t k = 0; k < 4000; ++k) {
    bool inserted = false;
    const auto id = static_cast<uint32_t>(key_of.size());
    // One hash for every key: a single run of slots that only `same` walks through.
    REQUIRE(table.FindOrAdd(7, id, [&](uint32_t c) { return key_of[c] == k; }, &inserted) == id);
    REQUIRE(inserted);
    key_of.push_back(k);
    if (k % 500 == 0) {
      for (uint64_t j = 0; j <= k; ++j)
        REQUIRE(table.Find(7, [&](uint32_t c) { return key_of[c] == j; }) == j);
    }
  }
}

}  // namespace
}  // namespace pecan
