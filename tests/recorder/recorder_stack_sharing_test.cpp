// A thread's stack is recorded once another thread reached it (recorder/stack_sharing.h), and a
// new thread that glibc gives the same stack starts unshared.
#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {

TEST_CASE(
    "a stack another thread reached is recorded, and unshared again for the next thread "
    "on it",
    "[recorder][stack]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      RecordedRun run =
          RunRecorded(Program("stack_reuse", compiler), {}, "stack_reuse_" + compiler);
      REQUIRE(run.result.exit_status == 0);
      Trace trace = ReadTrace(run.trace_path);
      INFO(run.result.out);
      const uint64_t first = run.result.Address("local1");
      const uint64_t second = run.result.Address("local2");
      // The owner's write after main's read, besides main's read.
      auto first_writes = EventsOf(trace, EventKind::kWrite, first);
      CHECK(first_writes.size() == 1);
      CHECK(EventsOf(trace, EventKind::kRead, first).size() == 1);
      if (first == second) {
        CHECK(first_writes.size() == 1);  // not the second thread's two writes
      } else {
        WARN("glibc did not reuse the stack this time; the reset was not exercised");
      }
      CHECK(EventsOf(trace, EventKind::kWrite, second).size() == (first == second ? 1u : 0u));
    }
  }
}

}  // namespace pecan::rt_test
