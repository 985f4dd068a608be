// 64 threads hammering locks, shared counters and an atomic for a few seconds: every event the
// program made is in the trace (no loss), and the locks are held as the program held them. The
// trace (tens of millions of events) is checked as it streams, in bounded memory.
#include <catch2/catch.hpp>

#include <vector>

#include "run_program.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {

TEST_CASE("64 threads for seconds: every lock, access and atomic the program counts is traced",
          "[recorder][stress]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      RecordedRun run = RunRecorded(Program("stress", compiler), {"2500"}, "stress_" + compiler);
      const ProgramResult& out = run.result;
      REQUIRE(out.exited);
      REQUIRE(out.exit_status == 0);

      const size_t threads = size_t(out.Count("threads"));
      const size_t iterations = size_t(out.Count("iterations"));  // all threads together
      std::vector<uint64_t> locks;
      for (int i = 0; i < 4; ++i) locks.push_back(out.Address("lock" + std::to_string(i)));
      const uint64_t counts = out.Address("shared_counts");
      const uint64_t counts_end = counts + out.Size("shared_counts");
      const uint64_t slots = out.Address("own_slots");
      const uint64_t slots_end = slots + out.Size("own_slots");
      const uint64_t total = out.Address("total");

      TraceReader reader(run.trace_path);
      size_t events = 0, lock_events = 0, unlock_events = 0, count_reads = 0, count_writes = 0,
             slot_writes = 0, total_rmws = 0;
      size_t outside_lock = 0, held_twice = 0, released_unheld = 0, unknown_threads = 0;
      std::vector<int> held_by_thread(threads + 1, -1);  // lock index a thread holds
      std::vector<int64_t> holder(locks.size(), -1);     // thread holding each lock
      EventBatch batch;
      while (reader.Next(batch)) {
        events += batch.count();
        for (size_t i = 0; i < batch.count(); ++i) {
          const EventKind kind = batch.kind[i];
          const uint64_t addr = batch.addr[i];
          const ThreadId t = batch.thread[i];
          if (t >= held_by_thread.size()) {
            ++unknown_threads;
            continue;
          }
          for (size_t l = 0; l < locks.size(); ++l) {
            if (addr != locks[l]) continue;
            if (kind == EventKind::kLock) {
              ++lock_events;
              held_twice += holder[l] != -1;
              holder[l] = t;
              held_by_thread[t] = int(l);
            } else if (kind == EventKind::kUnlock) {
              ++unlock_events;
              released_unheld += holder[l] != int64_t(t);
              holder[l] = -1;
              held_by_thread[t] = -1;
            }
          }
          if (addr >= counts && addr < counts_end) {
            if (kind == EventKind::kRead) ++count_reads;
            if (kind == EventKind::kWrite) {
              ++count_writes;
              // Each shared counter is only touched inside its lock.
              outside_lock += held_by_thread[t] != int((addr - counts) / 8);
            }
          }
          if (kind == EventKind::kWrite && addr >= slots && addr < slots_end) ++slot_writes;
          if (kind == EventKind::kAtomicRmw && addr == total) ++total_rmws;
        }
      }
      INFO(events << " events, " << iterations << " iterations");
      CHECK(reader.complete());
      CHECK(reader.meta().dropped_events == 0);
      CHECK(reader.threads().size() == threads + 1);
      CHECK(iterations > 100000);  // seconds of hammering, not a handful
      CHECK(lock_events == iterations);
      CHECK(unlock_events == iterations);
      CHECK(count_reads == iterations + 4);  // (main reads the counters once more to add them)
      CHECK(count_writes == iterations);
      CHECK(slot_writes == iterations);
      CHECK(total_rmws == iterations);
      CHECK(unknown_threads == 0);
      CHECK(outside_lock == 0);
      CHECK(held_twice == 0);
      CHECK(released_unheld == 0);
    }
  }
}

}  // namespace pecan::rt_test
