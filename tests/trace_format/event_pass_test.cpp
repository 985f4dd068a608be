// ForEachEventUpTo (event_pass.h): the events up to the one asked for, in order, and none after
// it, whether it falls inside a batch, at the file's first event, or past a file's end.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "random_trace.h"
#include "trace_format/event_pass.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"

using namespace pecan;
using pecan::testing::MakeRandomTrace;
using pecan::testing::RandomTraceShape;
using pecan::testing::ReadFileBytes;
using pecan::testing::TempFile;
using pecan::testing::WriteFileBytes;

namespace {

// What one pass up to `last` saw: the events' count, whether each came in order with the trace's
// fields, and what it returned.
struct Seen {
  uint64_t calls = 0;
  uint64_t wrong = 0;
  uint64_t read = 0;
};

Seen PassUpTo(const std::string& path, const Trace& trace, EventIndex last) {
  Seen seen;
  TraceReader reader(path, false);
  seen.read = ForEachEventUpTo(reader, false, "", 0, last, [&](EventIndex i, const Event& e) {
    seen.wrong += i != seen.calls++ || i > last || i >= trace.size_events() ||
                  e.addr != trace.addr[i] || e.thread != trace.thread[i] || e.kind != trace.kind[i];
  });
  return seen;
}

}  // namespace

TEST_CASE("a pass up to an event reads the events up to it and none after",
          "[pecan-file][event_pass]") {
  // Chunks of 1000 events, read 4096 at a time: the events asked for fall inside a chunk and
  // inside a batch, on a chunk's first event, and at the file's first.
  const Trace trace = MakeRandomTrace(11, RandomTraceShape{20000, 5, 30});
  TempFile file("up-to.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{1000, 1});
  for (const EventIndex last :
       {EventIndex{0}, EventIndex{1}, EventIndex{999}, EventIndex{1000}, EventIndex{4095},
        EventIndex{4096}, EventIndex{12345}, EventIndex{19999}}) {
    INFO("up to " << last);
    const Seen seen = PassUpTo(file.path(), trace, last);
    CHECK(seen.calls == last + 1);
    CHECK(seen.read == last + 1);
    CHECK(seen.wrong == 0);
  }
  // Past the end, and the greatest index (ForEachEvent's): every event.
  for (const EventIndex last : {EventIndex{20000}, EventIndex{1} << 40, ~EventIndex{0}}) {
    INFO("up to " << last);
    const Seen seen = PassUpTo(file.path(), trace, last);
    CHECK(seen.calls == trace.size_events());
    CHECK(seen.read == trace.size_events());
    CHECK(seen.wrong == 0);
  }
}

TEST_CASE("a pass up to an event past a cut file's end reads what ForEachEvent reads",
          "[pecan-file][event_pass]") {
  const Trace trace = MakeRandomTrace(12, RandomTraceShape{20000, 5, 30});
  TempFile file("up-to-whole.pecan");
  WriteTrace(file.path(), trace, TraceWriterOptions{1000, 1});
  const std::string bytes = ReadFileBytes(file.path());
  TempFile cut("up-to-cut.pecan");
  WriteFileBytes(cut.path(), bytes.substr(0, bytes.size() / 2));
  TraceReader whole_pass(cut.path(), false);
  const uint64_t read = ForEachEvent(whole_pass, false, "", 0, [](EventIndex, const Event&) {});
  REQUIRE(read > 0);
  REQUIRE(read < trace.size_events());
  const Seen seen = PassUpTo(cut.path(), trace, trace.size_events() - 1);
  CHECK(seen.calls == read);
  CHECK(seen.read == read);
  CHECK(seen.wrong == 0);
}
