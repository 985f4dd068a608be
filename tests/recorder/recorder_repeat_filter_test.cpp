// The repeat filter's table on its own (recorder/repeat_filter.h): it never calls an access a
// repeat that its thread did not make before in the same epoch, and two access streams that land
// on the same sets are both remembered — so how much a loop records does not depend on where
// ASLR put its code.
#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "recorder/repeat_filter.h"

namespace pecan::rt {
namespace {

uint64_t Word(EventKind kind, uint64_t addr) {
  return PackPlainWord(kind, 0, 8, addr);
}

}  // namespace

TEST_CASE("the repeat filter never reports an access it has not seen in the epoch",
          "[recorder][repeats]") {
  std::vector<RepeatEntry> table(kRepeatEntries, RepeatEntry{0, 0});
  std::mt19937_64 rng(7);
  uint64_t epoch = kFirstEpochTag;
  std::set<std::tuple<uint64_t, uint64_t>> seen;  // (word, pc) of this epoch
  uint64_t repeats = 0;
  for (int i = 0; i < 200000; ++i) {
    if (rng() % 500 == 0) {
      epoch += kFirstEpochTag;  // StartNextEpoch without the wrap (far away here)
      seen.clear();
    }
    const uint64_t word =
        Word(rng() % 2 ? EventKind::kRead : EventKind::kWrite, 0x10000 + 8 * (rng() % 3000));
    const uint64_t pc = 0x401000 + 4 * (rng() % 5);
    const bool repeat = IsRepeat(table.data(), epoch, word, pc);
    const bool was_seen = !seen.insert({word, pc}).second;
    if (repeat) REQUIRE(was_seen);
    repeats += repeat;
  }
  CHECK(repeats > 0);
}

TEST_CASE("a loop's read and write streams are both filtered wherever their code lies",
          "[recorder][repeats]") {
  // A loop reading and writing values[i] for i < 1024, many rounds in one epoch: 2048 distinct
  // accesses in a 4096-entry table. Whatever the two instructions' addresses, after the first
  // round every access is a repeat.
  std::mt19937_64 rng(11);
  for (int layout = 0; layout < 200; ++layout) {
    std::vector<RepeatEntry> table(kRepeatEntries, RepeatEntry{0, 0});
    const uint64_t read_pc = 0x400000 + (rng() & 0xfffff);
    const uint64_t write_pc = read_pc + 7 + (rng() & 0xff);
    const uint64_t base = 0x600000 + 8 * (rng() & 0xffff);
    uint64_t recorded = 0;
    for (int round = 0; round < 4; ++round) {
      for (uint64_t i = 0; i < 1024; ++i) {
        recorded +=
            !IsRepeat(table.data(), kFirstEpochTag, Word(EventKind::kRead, base + 8 * i), read_pc);
        recorded += !IsRepeat(table.data(), kFirstEpochTag, Word(EventKind::kWrite, base + 8 * i),
                              write_pc);
      }
    }
    INFO("layout " << layout << ": read pc " << read_pc << ", write pc " << write_pc);
    REQUIRE(recorded == 2048);
  }
}

}  // namespace pecan::rt
