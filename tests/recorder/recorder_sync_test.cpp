// Recorded pthread and C++ standard-library synchronization, with gcc and clang: the trace
// holds every operation the program made, in an order consistent with its synchronization.
#include <catch2/catch.hpp>

#include "clean_recording.h"

namespace pecan::rt_test {
namespace {

size_t CountWhere(const Trace& trace, EventKind kind, uint64_t addr, uint8_t flags) {
  size_t count = 0;
  for (size_t i = 0; i < trace.size_events(); ++i) {
    count += trace.kind[i] == kind && trace.addr[i] == addr && trace.flags[i] == flags;
  }
  return count;
}

}  // namespace

TEST_CASE("pthread synchronization is recorded completely and in a feasible order", "[recorder]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      const auto [out, trace] = RecordCleanly("pthread_sync", compiler);

      const long workers = out.Count("workers");
      const long iterations = out.Count("iterations");
      REQUIRE(trace.threads.size() == size_t(workers + 1));
      CHECK(trace.meta.exit.known);
      CHECK(trace.meta.exit.exited);
      CHECK(trace.meta.exit.exit_status == 0);

      // Every acquisition, counted; the recursive mutex once per outermost acquisition.
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("plain_mutex")) ==
            size_t(workers * iterations));
      CHECK(CountEvents(trace, EventKind::kUnlock, out.Address("plain_mutex")) ==
            size_t(workers * iterations));
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("recursive_mutex")) ==
            size_t(workers * iterations));
      CHECK(CountEvents(trace, EventKind::kUnlock, out.Address("recursive_mutex")) ==
            size_t(workers * iterations));
      CHECK(CountEvents(trace, EventKind::kReadLock, out.Address("rwlock")) ==
            size_t(workers * iterations / 2));
      CHECK(CountEvents(trace, EventKind::kReadUnlock, out.Address("rwlock")) ==
            size_t(workers * iterations / 2));
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("rwlock")) ==
            size_t(workers * iterations / 2));
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("spin")) ==
            size_t(workers * iterations));

      // Barrier: two generations of `workers` arrivals and departures, with the count.
      CHECK(CountEvents(trace, EventKind::kBarrierArrive, out.Address("barrier")) ==
            size_t(2 * workers));
      CHECK(CountEvents(trace, EventKind::kBarrierDepart, out.Address("barrier")) ==
            size_t(2 * workers));
      for (size_t i : EventsOf(trace, EventKind::kBarrierArrive, out.Address("barrier"))) {
        CHECK(trace.size[i] == uint32_t(workers));
      }

      // Condition variable and semaphore hand-offs.
      CHECK(CountEvents(trace, EventKind::kNotify, out.Address("cond")) == 1);
      CHECK(CountEvents(trace, EventKind::kSemPost, out.Address("semaphore")) == 1);
      CHECK(CountEvents(trace, EventKind::kSemWait, out.Address("semaphore")) == 1);

      // pthread_once: one release by the thread that ran the routine, before every acquire.
      auto releases = EventsOf(trace, EventKind::kHbRelease, out.Address("once"));
      auto acquires = EventsOf(trace, EventKind::kHbAcquire, out.Address("once"));
      REQUIRE(releases.size() == 1);
      CHECK(acquires.size() == size_t(workers));
      for (size_t a : acquires) CHECK(a > releases[0]);

      // Atomics with their memory orders; the failed compare-exchange is a load with the
      // failure order, the successful one a read-modify-write with the success order.
      CHECK(CountWhere(trace, EventKind::kAtomicRmw, out.Address("atomic_counter"), 0) ==
            size_t(workers * iterations));
      CHECK(CountWhere(trace, EventKind::kAtomicStore, out.Address("flag"), 3) == 1);
      CHECK(CountWhere(trace, EventKind::kAtomicLoad, out.Address("flag"), 2) >= 1);
      CHECK(CountWhere(trace, EventKind::kAtomicRmw, out.Address("cas_target"), 4) == 1);
      CHECK(CountWhere(trace, EventKind::kAtomicLoad, out.Address("cas_target"), 0) == 1);
      // The consumer's acquire load that saw the flag comes after the release store.
      auto stores = EventsOf(trace, EventKind::kAtomicStore, out.Address("flag"));
      auto loads = EventsOf(trace, EventKind::kAtomicLoad, out.Address("flag"));
      REQUIRE(!loads.empty());
      CHECK(loads.back() > stores[0]);

      // Annotations.
      CHECK(CountEvents(trace, EventKind::kRegionBegin, 7) == 1);
      CHECK(CountEvents(trace, EventKind::kRegionEnd, 7) == 1);
      auto hb_release = EventsOf(trace, EventKind::kHbRelease, out.Address("annotated"));
      auto hb_acquire = EventsOf(trace, EventKind::kHbAcquire, out.Address("annotated"));
      REQUIRE(hb_release.size() == 1);
      REQUIRE(hb_acquire.size() == 1);
      CHECK(hb_release[0] < hb_acquire[0]);

      // Memory versioning: the block freed and allocated again at the same address.
      const uint64_t first = out.Address("first");
      auto allocs = EventsOf(trace, EventKind::kAlloc, first);
      auto frees = EventsOf(trace, EventKind::kFree, first);
      REQUIRE(allocs.size() >= 1);
      REQUIRE(frees.size() >= 1);
      CHECK(allocs[0] < frees[0]);
      if (out.Address("second") == first) {
        REQUIRE(allocs.size() >= 2);
        CHECK(frees[0] < allocs[1]);
      }
    }
  }
}

TEST_CASE("C++ threads, mutexes, shared mutexes, condition variables and atomics are recorded",
          "[recorder]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      const auto [out, trace] = RecordCleanly("cxx_sync", compiler);

      const long workers = out.Count("workers");
      const long iterations = out.Count("iterations");
      REQUIRE(trace.threads.size() == size_t(workers + 2));  // main, consumer, workers
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("mutex")) ==
            size_t(workers * iterations));
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("recursive")) ==
            size_t(workers * iterations));
      CHECK(CountEvents(trace, EventKind::kLock, out.Address("shared")) ==
            size_t(workers * iterations / 4));
      CHECK(CountEvents(trace, EventKind::kReadLock, out.Address("shared")) ==
            size_t(workers * iterations * 3 / 4));
      CHECK(CountWhere(trace, EventKind::kAtomicRmw, out.Address("hits"), 0) ==
            size_t(workers * iterations));
      CHECK(CountWhere(trace, EventKind::kAtomicStore, out.Address("published"), 3) == 1);
      CHECK(CountWhere(trace, EventKind::kAtomicLoad, out.Address("published"), 5) ==
            1);  // failed CAS
      CHECK(CountEvents(trace, EventKind::kNotify, out.Address("queue_cv")) == 5);

      // std::call_once and the function-local static are one-time initializations: one
      // release each, which every acquire follows.
      size_t hb_releases = 0;
      for (size_t i = 0; i < trace.size_events(); ++i)
        hb_releases += trace.kind[i] == EventKind::kHbRelease;
      CHECK(hb_releases == 1);

      // new/delete: ALLOC/FREE sites are in the program, not in libstdc++.
      size_t allocs_in_program = 0;
      for (size_t i = 0; i < trace.size_events(); ++i) {
        if (trace.kind[i] != EventKind::kAlloc) continue;
        const SiteInfo& site = trace.sites[trace.site[i]];
        for (const ModuleInfo& module : trace.modules) {
          if (module.id == site.module && module.path == trace.meta.program) ++allocs_in_program;
        }
      }
      CHECK(allocs_in_program >= size_t(workers));
    }
  }
}

}  // namespace pecan::rt_test
