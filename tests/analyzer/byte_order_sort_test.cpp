// SortByVersionAndBegin, the first pass's sort of its keys: the same order of (version, begin) as
// std::sort gives, on entries that share their high bytes (addresses of one heap, few versions),
// differ in every byte, repeat, or are all one; from none to 200,000 of them.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "analyzer/byte_order_sort.h"
#include "scrambler.h"

namespace pecan {
namespace {

struct Entry {
  uint32_t version = 0;
  uint64_t begin = 0;
};

// The entries' (version, begin)s in the order SortByVersionAndBegin puts their numbers, checked
// to be std::sort's.
void CheckSorted(const std::vector<Entry>& entries) {
  std::vector<uint32_t> order(entries.size());
  std::iota(order.begin(), order.end(), 0u);
  SortByVersionAndBegin(order.data(), order.data() + order.size(),
                        [&](uint32_t n) -> const Entry& { return entries[n]; });
  std::vector<uint32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<uint32_t> all(entries.size());
  std::iota(all.begin(), all.end(), 0u);
  REQUIRE(sorted == all);  // each number once
  std::vector<std::pair<uint32_t, uint64_t>> got;
  std::vector<std::pair<uint32_t, uint64_t>> want;
  for (const uint32_t n : order) got.emplace_back(entries[n].version, entries[n].begin);
  for (const Entry& e : entries) want.emplace_back(e.version, e.begin);
  std::sort(want.begin(), want.end());
  REQUIRE(got == want);
}

TEST_CASE("SortByVersionAndBegin orders as std::sort does") {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    Scrambler next(seed);
    const size_t count = seed <= 4 ? seed * seed * 10 : seed % 3 == 0 ? 200000 : 5000 + seed;
    std::vector<Entry> entries(count);
    for (size_t k = 0; k < count; ++k) {
      Entry& e = entries[k];
      switch (seed % 4) {
        case 0:  // one heap's addresses, walked in runs, a few versions
          e.version = next() % 5;
          e.begin = 0x5555'0000'0000ull + (k / 7) * 3 + next() % 4;
          break;
        case 1:  // every byte differs
          e.version = next();
          e.begin = uint64_t{next()} << 32 | next();
          break;
        case 2:  // one version, repeats
          e.version = 7;
          e.begin = 0x7fff'0000'0000ull + next() % 1000;
          break;
        default:  // versions only differ
          e.version = next() % 100000;
          e.begin = 0x1234;
          break;
      }
    }
    INFO("seed " << seed << ", " << count << " entries");
    CheckSorted(entries);
  }
}

TEST_CASE("SortByVersionAndBegin leaves none, one, or all-equal entries in any order of theirs") {
  CheckSorted({});
  CheckSorted({Entry{3, 9}});
  CheckSorted(std::vector<Entry>(1000, Entry{2, 0xffff'ffff'ffff'ffffull}));
  CheckSorted({Entry{~0u, 0}, Entry{0, ~uint64_t{0}}, Entry{~0u, ~uint64_t{0}}, Entry{0, 0}});
}

}  // namespace
}  // namespace pecan
