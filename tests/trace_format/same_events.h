// RequireSameEvents: two event batches hold the same events, column by column.
#pragma once

#include <catch2/catch.hpp>

#include "trace_format/trace_reader.h"

namespace pecan::testing {

inline void RequireSameEvents(const EventBatch& a, const EventBatch& b) {
  REQUIRE(a.count() == b.count());
  CHECK(a.first_event == b.first_event);
  CHECK(a.thread == b.thread);
  CHECK(a.kind == b.kind);
  CHECK(a.flags == b.flags);
  CHECK(a.size == b.size);
  CHECK(a.addr == b.addr);
  CHECK(a.site == b.site);
  CHECK(a.repeats_before == b.repeats_before);
}

}  // namespace pecan::testing
