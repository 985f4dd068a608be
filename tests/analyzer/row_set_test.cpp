// RowSet, ClassesSeen's set per page: against a std::set as it grows from one slot past the size
// where rows take blocks (random slots, rows walked in order as a thread walks a buffer), in a
// table whose every slot of one place in a row is taken (the column is full, the rest is not), and
// with most slots at one place of their rows.
#include <catch2/catch.hpp>
#include <cstdint>
#include <set>

#include "analyzer/row_set.h"
#include "scrambler.h"

namespace pecan {
namespace {

uint32_t SlotOf(uint32_t place, uint32_t stream) {
  return place << RowSet::kStreamBits | stream;
}

// Inserts `slot` into both and checks they agree.
void InsertBoth(RowSet& set, std::set<uint32_t>& model, uint32_t slot) {
  const bool fresh = model.insert(slot).second;
  REQUIRE(set.Insert(slot) == fresh);
  REQUIRE(set.size() == model.size());
}

void CheckSame(const RowSet& set, const std::set<uint32_t>& model) {
  std::set<uint32_t> listed;
  set.ForEach([&](uint32_t slot) { REQUIRE(listed.insert(slot).second); });
  REQUIRE(listed == model);
}

TEST_CASE("RowSet holds what a std::set holds as it grows, random slots and walked rows") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Scrambler next(seed);
    RowSet set(seed % 3 == 0 ? 64 : 1);
    std::set<uint32_t> model;
    for (int step = 0; step < 30000; ++step) {
      if (next() % 4 == 0) {
        // A thread walks 1 to 40 places in a row with one stream (the largest packed on some).
        const uint32_t stream = seed % 2 == 0 && next() % 5 == 0
                                    ? (uint32_t{1} << RowSet::kStreamBits) - 2
                                    : next() % 12;
        const uint32_t first = next() % 256;
        const uint32_t count = 1 + next() % 40;
        for (uint32_t place = first; place < first + count && place < 256; ++place)
          InsertBoth(set, model, SlotOf(place, stream));
      } else {
        InsertBoth(set, model, SlotOf(next() % 256, next() % (seed <= 3 ? 30 : 3000)));
      }
    }
    CheckSame(set, model);
    for (const uint32_t slot : model) REQUIRE_FALSE(set.Insert(slot));
  }
}

TEST_CASE("RowSet finds the slots of a place whose column of blocks is full") {
  // 64 slots: 4 blocks of 16, so a place has 4 slots in its column, and the table holds 48
  // before it grows. Every slot here is of places 0, 16, 32, 48 (offset 0 in their rows): 4 in
  // the column, 44 past it.
  RowSet set(64);
  std::set<uint32_t> model;
  for (uint32_t stream = 0; stream < 12; ++stream)
    for (uint32_t place = 0; place < 64; place += 16) InsertBoth(set, model, SlotOf(place, stream));
  REQUIRE(model.size() == 48);
  CheckSame(set, model);
  for (const uint32_t slot : model) REQUIRE_FALSE(set.Insert(slot));
  // Others of other offsets still go in (the table grows), and the column's slots stay found.
  for (uint32_t place = 1; place < 16; ++place) InsertBoth(set, model, SlotOf(place, 99));
  CheckSame(set, model);
  for (const uint32_t slot : model) REQUIRE_FALSE(set.Insert(slot));
}

TEST_CASE("RowSet keeps 40 slots of one place in a table of 64") {
  // No growth before 48: the column of place 0 (4 slots) overflows 36 times into the rest.
  RowSet set(64);
  std::set<uint32_t> model;
  for (uint32_t stream = 0; stream < 40; ++stream) InsertBoth(set, model, SlotOf(0, stream));
  CheckSame(set, model);
  for (const uint32_t slot : model) REQUIRE_FALSE(set.Insert(slot));
  REQUIRE(set.Insert(SlotOf(0, 40)));
  REQUIRE_FALSE(set.Insert(SlotOf(0, 40)));
}

TEST_CASE("RowSet holds many streams at one place of every row") {
  // Many streams touch only the first of the 16 fields of the structs a thread first walked:
  // most slots share a column, which fills up; they go on past its first blocks.
  RowSet set;
  std::set<uint32_t> model;
  for (uint32_t stream = 0; stream < 3000; ++stream) {
    for (uint32_t place = 0; place < 256; place += 16)
      InsertBoth(set, model, SlotOf(place, stream));
    if (stream % 50 == 0)
      for (uint32_t place = 0; place < 256; ++place) InsertBoth(set, model, SlotOf(place, stream));
  }
  CheckSame(set, model);
  for (const uint32_t slot : model) REQUIRE_FALSE(set.Insert(slot));
}

}  // namespace
}  // namespace pecan
