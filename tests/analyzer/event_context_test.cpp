// EventContexts: the calls open at an event (from FUNC_ENTRY/FUNC_EXIT, innermost first) and the
// FORK that created its thread, answered for many events in one pass.
#include <catch2/catch.hpp>

#include "analyzer/event_context.h"
#include "trace_builder.h"

using namespace pecan;
using pecan::testing::TraceBuilder;

TEST_CASE("The calls open at an event and the event that created its thread", "[context]") {
  TraceBuilder b;
  const EventIndex main_entry = b.FuncEntry(0, 1);
  const EventIndex fork = b.Fork(0, 1);
  b.Begin(1);
  const EventIndex worker = b.FuncEntry(1, 2);
  const EventIndex helper = b.FuncEntry(1, 3);
  b.Write(1, 0x10);
  b.FuncExit(1);  // helper returns
  const EventIndex read = b.Read(1, 0x10);
  const EventIndex deeper = b.FuncEntry(1, 4);
  const EventIndex write = b.Write(1, 0x20);
  b.FuncExit(1);
  b.FuncExit(1);
  b.End(1);
  const EventIndex main_read = b.Read(0, 0x10);
  const EventIndex unasked = b.Read(0, 0x20);

  const EventContexts contexts(b.trace(), {write, read, main_read, read});
  CHECK(contexts.CallsAt(read) == std::vector<EventIndex>{worker});
  CHECK(contexts.CallsAt(write) == std::vector<EventIndex>{deeper, worker});
  CHECK(contexts.CallsAt(main_read) == std::vector<EventIndex>{main_entry});
  CHECK(contexts.CallsAt(unasked).empty());
  (void)helper;
  CHECK(contexts.CreationOf(1) == fork);
  CHECK_FALSE(contexts.CreationOf(0).has_value());
  CHECK_FALSE(contexts.CreationOf(7).has_value());

  // At most max_frames, the innermost.
  const EventContexts shallow(b.trace(), {write}, 1);
  CHECK(shallow.CallsAt(write) == std::vector<EventIndex>{deeper});
}
