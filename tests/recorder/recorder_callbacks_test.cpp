// Every callback gcc and clang emit is defined (the all_callbacks programs link against the
// runtime alone) and every atomic really performs its operation, recorded or not.
#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {

TEST_CASE("all callbacks: atomics compute the right values in off and record mode", "[recorder]") {
  for (std::string variant : {"gcc", "gcc-volatile", "clang", "clang-volatile"}) {
    SECTION(variant) {
      ProgramResult off = RunProgram(Program("all_callbacks", variant), {}, {{"PECAN_MODE", ""}});
      CHECK(off.exited);
      CHECK(off.exit_status == 0);

      RecordedRun run = RunRecorded(Program("all_callbacks", variant), {}, "callbacks_" + variant);
      REQUIRE(run.result.exited);
      CHECK(run.result.exit_status == 0);
      Trace trace = ReadTrace(run.trace_path);
      INFO(Describe(CheckAll(trace)));
      CHECK(CheckAll(trace).empty());

      // 32-bit atomics: ExerciseAtomic makes 6 RMWs + 2 successful CAS (RMW), one failed CAS
      // (a load), and its loads and the store, all at the variable's address.
      const uint64_t a32 = run.result.Address("a32");
      CHECK(CountEvents(trace, EventKind::kAtomicStore, a32) == 1);
      CHECK(CountEvents(trace, EventKind::kAtomicRmw, a32) == 8);
      CHECK(CountEvents(trace, EventKind::kAtomicLoad, a32) == 9);
      size_t fences = 0;
      for (size_t i = 0; i < trace.size_events(); ++i) fences += trace.kind[i] == EventKind::kFence;
      CHECK(fences == 1);
      // 16-byte atomics are instrumented by gcc always and by clang with -mcx16.
      if (variant != "clang") {
        const uint64_t i128 = run.result.Address("i128");
        CHECK(CountEvents(trace, EventKind::kAtomicStore, i128) == 1);
        CHECK(CountEvents(trace, EventKind::kAtomicRmw, i128) == 3);
        for (size_t i : EventsOf(trace, EventKind::kAtomicRmw, i128)) CHECK(trace.size[i] == 16);
      }
    }
  }
}

}  // namespace pecan::rt_test
