// Atomics are ordered per location (each atomic stripe numbers its operations) rather than by one
// counter for the whole program: the trace's order of the atomics on one location must still be
// their real modification order, also when the threads interleave them with mutexes (ordered by
// the global stamp). The program writes a mark at the index of the value each atomic returned,
// so the trace itself tells what every atomic saw.
#include <catch2/catch.hpp>

#include "clean_recording.h"

namespace pecan::rt_test {

TEST_CASE("atomics on one location are in the trace in their modification order",
          "[recorder][atomics]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      const auto [out, trace] = RecordCleanly("atomic_order", compiler, {"3000"});

      const uint64_t counter = out.Address("counter");
      const uint64_t cas_counter = out.Address("cas_counter");
      const uint64_t rmw_marks = out.Address("rmw_marks");
      const uint64_t load_marks = out.Address("load_marks");
      const uint64_t cas_marks = out.Address("cas_marks");
      const uint64_t marks_bytes = out.Size("rmw_marks");
      const size_t operations = size_t(out.Count("threads") * out.Count("iterations"));

      // What each thread's next mark must be, from the atomics before it in trace order.
      std::vector<uint64_t> expect_rmw(trace.threads.size()), expect_load(trace.threads.size()),
          expect_cas(trace.threads.size());
      uint64_t rmws = 0, cas_successes = 0;
      size_t rmw_marks_seen = 0, load_marks_seen = 0, cas_marks_seen = 0, wrong = 0;
      for (size_t i = 0; i < trace.size_events(); ++i) {
        const ThreadId t = trace.thread[i];
        const uint64_t addr = trace.addr[i];
        switch (trace.kind[i]) {
          case EventKind::kAtomicRmw:
            if (addr == counter) expect_rmw[t] = rmw_marks + 8 * rmws++;
            if (addr == cas_counter) expect_cas[t] = cas_marks + 8 * cas_successes++;
            break;
          case EventKind::kAtomicLoad:
            if (addr == counter) expect_load[t] = load_marks + 8 * rmws;
            break;
          case EventKind::kWrite:
            if (addr - rmw_marks < marks_bytes) {
              ++rmw_marks_seen;
              if (addr != expect_rmw[t]) ++wrong;
            } else if (addr - load_marks < marks_bytes) {
              ++load_marks_seen;
              if (addr != expect_load[t]) ++wrong;
            } else if (addr - cas_marks < marks_bytes) {
              ++cas_marks_seen;
              if (addr != expect_cas[t]) ++wrong;
            }
            break;
          default:
            break;
        }
      }
      CHECK(rmws == operations);
      CHECK(cas_successes == operations);
      CHECK(rmw_marks_seen == operations);
      CHECK(load_marks_seen == operations);
      CHECK(cas_marks_seen == operations);
      CHECK(wrong == 0);
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("mutex")) > 0);
    }
  }
}

}  // namespace pecan::rt_test
