// The wait-for state of a deadlocked recording (format 2.1): it round-trips through .pecan files,
// a file without it reads as before, ids outside the tables are a clear error, and dump words it.
#include <catch2/catch.hpp>

#include <sstream>

#include "random_trace.h"
#include "trace_format/blocked_threads_text.h"
#include "trace_format/error.h"
#include "trace_format/trace_dump.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"

using namespace pecan;
using pecan::testing::TempFile;

namespace {

// Three threads as in an ABBA deadlock: T0 joins T1, T1 waits for `b` held by T2, T2 for `a`
// held by T1. Sites 0..4: the join, the four lock calls.
Trace DeadlockedTrace() {
  Trace trace;
  trace.meta.producer = "test";
  trace.threads = {ThreadInfo{std::nullopt, 0, "T0"}, ThreadInfo{0, 0, "T1"},
                   ThreadInfo{0, 1, "T2"}};
  for (uint64_t offset = 10; offset < 15; ++offset) trace.sites.push_back(SiteInfo{0, offset});
  trace.names = {AddressName{0x1000, 40, "a"}, AddressName{0x1040, 40, "b"}};
  trace.push_back(Event{0, EventKind::kThreadBegin, 0, 0, 0, 0, 0});
  trace.push_back(Event{1, EventKind::kLock, 0, 0, 0x1000, 1, 0});
  trace.push_back(Event{2, EventKind::kLock, 0, 0, 0x1040, 3, 0});
  trace.meta.exit = ProgramExitInfo{true, true, kDeadlockExitStatus, 0};
  trace.meta.blocked_threads = {
      BlockedThreadInfo{0, BlockedOn::kJoin, 1, 0, {}},
      BlockedThreadInfo{1, BlockedOn::kMutex, 0x1040, 2, {LockHolderInfo{2, 3, false}}},
      BlockedThreadInfo{2, BlockedOn::kMutex, 0x1000, 4, {LockHolderInfo{1, 1, false}}}};
  return trace;
}

}  // namespace

TEST_CASE("the wait-for state of a deadlocked run round-trips through .pecan files",
          "[pecan-file][deadlock]") {
  const Trace original = DeadlockedTrace();
  TempFile file("deadlocked.pecan");
  WriteTrace(file.path(), original);
  const Trace back = ReadTrace(file.path());
  CHECK(back.meta.blocked_threads == original.meta.blocked_threads);
  CHECK(back.meta.exit.exit_status == kDeadlockExitStatus);
  TraceReader reader(file.path());
  CHECK(reader.meta().blocked_threads == original.meta.blocked_threads);
}

TEST_CASE("a trace of a run that ended otherwise has no wait-for state", "[pecan-file][deadlock]") {
  Trace trace = DeadlockedTrace();
  trace.meta.blocked_threads.clear();
  TempFile file("ended.pecan");
  WriteTrace(file.path(), trace);
  CHECK(ReadTrace(file.path()).meta.blocked_threads.empty());
}

TEST_CASE("a wait-for state naming a thread or site the trace lacks is a clear error",
          "[pecan-file][deadlock]") {
  Trace trace = DeadlockedTrace();
  SECTION("thread") {
    trace.meta.blocked_threads[1].holders[0].thread = 7;
  }
  SECTION("site") {
    trace.meta.blocked_threads[2].site = 99;
  }
  SECTION("joined thread") {
    trace.meta.blocked_threads[0].object = 3;
  }
  TempFile file("bad-blocked.pecan");
  WriteTrace(file.path(), trace);
  CHECK_THROWS_WITH(ReadTrace(file.path()), Catch::Contains("which the trace does not have"));
}

TEST_CASE("the wait-for state in words names threads, objects, sites and holders",
          "[pecan-file][deadlock]") {
  const Trace trace = DeadlockedTrace();
  const SiteDescriber site = [](SiteId id) { return "abba.c:" + std::to_string(20 + id); };
  CHECK(DescribeBlockedThreads(trace, site, {}) ==
        "T0 waits to join T1 (abba.c:20); T1 waits for mutex `b` (abba.c:22) held by T2 (taken "
        "at abba.c:23); T2 waits for mutex `a` (abba.c:24) held by T1 (taken at abba.c:21)");

  Trace self = trace;
  self.meta.blocked_threads = {
      BlockedThreadInfo{1, BlockedOn::kMutex, 0x1000, 2, {LockHolderInfo{1, 1, false}}},
      BlockedThreadInfo{2, BlockedOn::kCondition, 0x2000, 4, {}}};
  CHECK(DescribeBlockedThreads(self, site, {}) ==
        "T1 waits for mutex `a` (abba.c:22), which it holds itself (taken at abba.c:21); T2 "
        "waits for a notify of condition 0x2000 (abba.c:24)");

  std::ostringstream text;
  DumpTrace(trace, text, TraceDumpOptions{});
  CHECK_THAT(text.str(),
             Catch::Contains("# deadlock (every thread was blocked; the recorder "
                             "ended the run): T0 waits to join T1 (loc 10); T1 waits for "
                             "mutex `b` (loc 12) held by T2 (taken at loc 13)"));
  std::ostringstream json;
  DumpTrace(trace, json, TraceDumpOptions{DumpFormat::kJson, false, {}});
  CHECK_THAT(json.str(),
             Catch::Contains(R"("blocked_threads":[{"holders":[],"object":1,"on":"join")"));
}
