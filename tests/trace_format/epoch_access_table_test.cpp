// EpochAccessTable: the first value stored per access within the current epoch; earlier epochs'
// entries are gone for Find and FindOrAdd alike, however many the table held.
#include <catch2/catch.hpp>

#include "trace_format/epoch_access_table.h"

namespace pecan {

TEST_CASE("EpochAccessTable keeps the first value of each access in the current epoch",
          "[trace_format][repeats]") {
  EpochAccessTable table;
  const EpochAccess read{0x1000, 7, 8, EventKind::kRead};
  const EpochAccess write{0x1000, 7, 8, EventKind::kWrite};
  CHECK(table.Find(read, 1) == EpochAccessTable::kAbsent);
  CHECK(table.FindOrAdd(read, 1, 10) == 10);
  CHECK(table.FindOrAdd(read, 1, 11) == 10);
  CHECK(table.Find(read, 1) == 10);
  CHECK(table.Find(write, 1) == EpochAccessTable::kAbsent);  // Find never adds
  CHECK(table.Find(write, 1) == EpochAccessTable::kAbsent);
  CHECK(table.FindOrAdd(EpochAccess{0x1000, 8, 8, EventKind::kRead}, 1, 12) == 12);  // other site
  CHECK(table.FindOrAdd(EpochAccess{0x1000, 7, 4, EventKind::kRead}, 1, 13) == 13);  // other size

  // Thousands of accesses in epoch 2: the table grows and keeps them all.
  for (uint64_t i = 0; i < 5000; ++i)
    REQUIRE(table.FindOrAdd(EpochAccess{0x2000 + 8 * i, 1, 8, EventKind::kRead}, 2, 100 + i) ==
            100 + i);
  for (uint64_t i = 0; i < 5000; ++i)
    REQUIRE(table.Find(EpochAccess{0x2000 + 8 * i, 1, 8, EventKind::kRead}, 2) == 100 + i);
  CHECK(table.Find(read, 2) == EpochAccessTable::kAbsent);  // epoch 1 is over
  CHECK(table.Find(read, 1) == EpochAccessTable::kAbsent);

  // Epoch 3 starts empty.
  CHECK(table.Find(EpochAccess{0x2000, 1, 8, EventKind::kRead}, 3) == EpochAccessTable::kAbsent);
  CHECK(table.FindOrAdd(EpochAccess{0x2000, 1, 8, EventKind::kRead}, 3, 1) == 1);
}

}  // namespace pecan
