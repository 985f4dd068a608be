// Repeated accesses (recorder/repeat_filter.h): by default a thread's repeat of an access since
// its last other event is counted, not recorded, and the count travels with its next event;
// PECAN_REPEATS=all records every one.
#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {
namespace {

// Events of `kind` on `addr` by `thread`.
size_t CountBy(const Trace& trace, ThreadId thread, EventKind kind, uint64_t addr) {
  size_t n = 0;
  for (size_t i : EventsOf(trace, kind, addr)) n += trace.thread[i] == thread;
  return n;
}

uint64_t RepeatsOfThread(const Trace& trace, ThreadId thread) {
  uint64_t total = 0;
  for (EventIndex i = 0; i < trace.size_events(); ++i)
    if (trace.thread[i] == thread) total += trace.RepeatsBefore(i);
  return total;
}

}  // namespace

TEST_CASE("a loop's repeated accesses are counted, not recorded, unless PECAN_REPEATS=all",
          "[recorder][repeats]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      RecordedRun dropped = RunRecorded(Program("repeats", compiler), {}, "repeats_" + compiler);
      REQUIRE(dropped.result.exit_status == 0);
      REQUIRE(dropped.result.Count("final") == 1010);
      const uint64_t flag = dropped.result.Address("flag");
      const uint64_t counter = dropped.result.Address("counter");
      Trace trace = ReadTrace(dropped.trace_path);
      INFO(Describe(CheckAll(trace)));
      CHECK(CheckAll(trace).empty());
      CHECK(trace.meta.settings.drop_repeats);
      // The loop: the first read of each and the first write; then one of each per section.
      REQUIRE(EventsOf(trace, EventKind::kRead, flag).size() == 1);
      const ThreadId worker = trace.thread[EventsOf(trace, EventKind::kRead, flag).front()];
      CHECK(CountBy(trace, worker, EventKind::kRead, counter) == 11);
      CHECK(CountBy(trace, worker, EventKind::kWrite, counter) == 11);
      // 999 repeats of each of the loop's three accesses, all counted before the first lock:
      // on its first event, the read of the mutex that every lock begins with.
      CHECK(RepeatsOfThread(trace, worker) == 3 * 999);
      for (EventIndex i = 0; i < trace.size_events(); ++i) {
        if (trace.RepeatsBefore(i) == 0) continue;
        CHECK(trace.thread[i] == worker);
        CHECK(trace.kind[i] == EventKind::kRead);
        CHECK(CountBy(trace, worker, EventKind::kLock, trace.addr[i]) > 0);
      }

      RecordedRun all = RunRecorded(Program("repeats", compiler), {}, "repeats_all_" + compiler,
                                    {{"PECAN_REPEATS", "all"}});
      REQUIRE(all.result.exit_status == 0);
      Trace every = ReadTrace(all.trace_path);
      CHECK_FALSE(every.meta.settings.drop_repeats);
      CHECK(every.repeats_before.empty());
      const auto flag_reads = EventsOf(every, EventKind::kRead, all.result.Address("flag"));
      REQUIRE(flag_reads.size() == 1000);
      const ThreadId all_worker = every.thread[flag_reads.front()];
      CHECK(CountBy(every, all_worker, EventKind::kRead, all.result.Address("counter")) == 1010);
      CHECK(CountBy(every, all_worker, EventKind::kWrite, all.result.Address("counter")) == 1010);
    }
  }
}

}  // namespace pecan::rt_test
