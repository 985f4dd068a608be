// ByteKeyLines, the first pass's key per byte accessed one byte at a time: against a std::map of
// address -> key under random byte walks over a few buffers, lines whose numbers meet in the
// cache of recent lines, addresses at both ends of the address space, and slots that must stay
// put while thousands of lines are added after them.
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <vector>

#include "analyzer/byte_key_lines.h"
#include "scrambler.h"

namespace pecan {
namespace {

TEST_CASE("ByteKeyLines gives each byte its own slot, as a map would") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Scrambler next(seed);
    ByteKeyLines lines;
    std::map<uint64_t, uint32_t> model;
    // Buffers 64 KiB apart (their lines meet in the cache of 16), plus the space's two ends.
    const std::vector<uint64_t> bases = {0, 0x10000, 0x20000, 0x7fff0000, ~uint64_t{0} - 4095};
    for (uint32_t step = 0; step < 40000; ++step) {
      const uint64_t addr = bases[next() % bases.size()] + next() % 4096;
      uint32_t& slot = lines.Slot(addr);
      const auto known = model.find(addr);
      REQUIRE(slot == (known == model.end() ? ByteKeyLines::kNoKey : known->second));
      if (known == model.end() || next() % 8 == 0) {  // a new key, or a new version's
        slot = step;
        model[addr] = step;
      }
    }
    for (const auto& [addr, key] : model) REQUIRE(lines.Slot(addr) == key);
    REQUIRE(lines.Slot(0x30000) == ByteKeyLines::kNoKey);
  }
}

TEST_CASE("ByteKeyLines keeps a line's slots where they are while lines are added") {
  ByteKeyLines lines;
  uint32_t* first = &lines.Slot(1000);
  *first = 7;
  for (uint64_t line = 0; line < 20000; ++line) lines.Slot(0x100000 + line * 64) = 1;
  REQUIRE(lines.lines() == 20001);
  REQUIRE(&lines.Slot(1000) == first);
  REQUIRE(*first == 7);
  REQUIRE(lines.Slot(1001) == ByteKeyLines::kNoKey);
  REQUIRE(lines.lines() == 20001);  // 1000 and 1001 share a line
}

}  // namespace
}  // namespace pecan
