// 64 threads hammering locks, shared counters and an atomic for about a second: every event
// the program made is in the trace (no loss), and the trace is still well-formed.
#include <catch2/catch.hpp>

#include "clean_recording.h"

namespace pecan::rt_test {

TEST_CASE("64 threads: every lock, access and atomic the program counts is in the trace",
          "[recorder][stress]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      const auto [out, trace] = RecordCleanly("stress", compiler, {"4000"});

      const size_t threads = size_t(out.Count("threads"));
      const size_t iterations = size_t(out.Count("iterations"));
      REQUIRE(trace.threads.size() == threads + 1);
      std::vector<uint64_t> lock_addresses;
      for (int i = 0; i < 4; ++i) lock_addresses.push_back(out.Address("lock" + std::to_string(i)));
      size_t locks = 0;
      for (uint64_t lock : lock_addresses) locks += CountEvents(trace, EventKind::kLock, lock);
      CHECK(locks == threads * iterations);
      const uint64_t counts = out.Address("shared_counts");
      // (main reads the counters once more at the end to add them up)
      CHECK(CountEventsInRange(trace, EventKind::kRead, counts,
                               counts + out.Size("shared_counts")) == threads * iterations + 4);
      CHECK(CountEventsInRange(trace, EventKind::kWrite, counts,
                               counts + out.Size("shared_counts")) == threads * iterations);
      const uint64_t slots = out.Address("own_slots");
      CHECK(CountEventsInRange(trace, EventKind::kWrite, slots, slots + out.Size("own_slots")) ==
            threads * iterations);
      CHECK(CountEvents(trace, EventKind::kAtomicRmw, out.Address("total")) ==
            threads * iterations);

      // Each shared counter is only touched inside its lock.
      std::vector<int> held(threads + 1, -1);
      const uint64_t counts_end = counts + out.Size("shared_counts");
      size_t outside_lock = 0;
      for (size_t i = 0; i < trace.size_events(); ++i) {
        for (int l = 0; l < 4; ++l) {
          if (trace.addr[i] != lock_addresses[l]) continue;
          if (trace.kind[i] == EventKind::kLock) held[trace.thread[i]] = l;
          if (trace.kind[i] == EventKind::kUnlock) held[trace.thread[i]] = -1;
        }
        if (trace.kind[i] == EventKind::kWrite && trace.addr[i] >= counts &&
            trace.addr[i] < counts_end) {
          outside_lock += held[trace.thread[i]] != int((trace.addr[i] - counts) / 8);
        }
      }
      CHECK(outside_lock == 0);
    }
  }
}

}  // namespace pecan::rt_test
