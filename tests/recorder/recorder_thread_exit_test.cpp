// How threads end: every ending gets FREE(stack) + THREAD_END with its function events
// balanced, joins follow the end, and a reused stack is a new location after the FREE.
#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {
namespace {

size_t CountKind(const Trace& trace, EventKind kind) {
  size_t count = 0;
  for (size_t i = 0; i < trace.size_events(); ++i) count += trace.kind[i] == kind;
  return count;
}

}  // namespace

TEST_CASE("every way a thread ends gives FREE(stack) and THREAD_END, balanced", "[recorder]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      RecordedRun run =
          RunRecorded(Program("thread_exits", compiler), {}, "thread_exits_" + compiler);
      REQUIRE(run.result.exit_status == 0);
      Trace trace = ReadTrace(run.trace_path);
      INFO(Describe(CheckAll(trace)));
      CHECK(CheckAll(trace).empty());  // includes: function events balanced at THREAD_END
      REQUIRE(trace.threads.size() == 6);
      CHECK(CountKind(trace, EventKind::kThreadEnd) == 6);  // main too: it called pthread_exit
      CHECK(CountKind(trace, EventKind::kJoin) == 3);       // the detached ones are not joined
      // Each ending thread frees its stack right before THREAD_END.
      for (size_t i = 0; i < trace.size_events(); ++i) {
        if (trace.kind[i] != EventKind::kThreadEnd) continue;
        size_t before = i;
        while (before > 0 && trace.thread[--before] != trace.thread[i]) {
        }
        CHECK(trace.kind[before] == EventKind::kFree);
        CHECK(trace.size[before] > 4096);
      }
      // The thread that left with pthread_exit from a nested function wrote `shared` first.
      CHECK(EventsOf(trace, EventKind::kWrite, run.result.Address("shared")).size() == 1);
    }
  }
}

TEST_CASE(
    "stack accesses: dropped by default; kept with PECAN_STACK_ACCESSES=1, and a reused "
    "stack address is freed in between",
    "[recorder]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      RecordedRun dropped =
          RunRecorded(Program("thread_exits", compiler), {}, "stack_default_" + compiler);
      REQUIRE(dropped.result.exit_status == 0);
      Trace without = ReadTrace(dropped.trace_path);
      CHECK(!without.meta.settings.stack_accesses);
      CHECK(EventsOf(without, EventKind::kWrite, dropped.result.Address("local1")).empty());

      RecordedRun kept = RunRecorded(Program("thread_exits", compiler), {},
                                     "stack_kept_" + compiler, {{"PECAN_STACK_ACCESSES", "1"}});
      REQUIRE(kept.result.exit_status == 0);
      Trace with = ReadTrace(kept.trace_path);
      CHECK(with.meta.settings.stack_accesses);
      const uint64_t first = kept.result.Address("local1");
      const uint64_t second = kept.result.Address("local2");
      auto first_writes = EventsOf(with, EventKind::kWrite, first);
      REQUIRE(first_writes.size() >= 1);
      if (first == second) {
        // glibc gave the second thread the first one's stack: the same address, and between
        // the two threads' writes a FREE covering it.
        auto second_writes = first_writes;
        REQUIRE(first_writes.size() >= 2);
        const size_t a = first_writes.front();
        const size_t b = first_writes.back();
        CHECK(with.thread[a] != with.thread[b]);
        bool freed_between = false;
        for (size_t i = a; i < b; ++i) {
          freed_between |= with.kind[i] == EventKind::kFree && with.addr[i] <= first &&
                           first < with.addr[i] + with.size[i];
        }
        CHECK(freed_between);
      } else {
        WARN("glibc did not reuse the stack this time; the FREE ordering was not exercised");
      }
    }
  }
}

}  // namespace pecan::rt_test
