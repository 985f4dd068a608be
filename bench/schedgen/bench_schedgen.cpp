// bench_schedgen: for synthetic runs of 1e5, 1e6 and 1e7 events, the time to generate (and
// validate) one clip for findings late in the trace, and the clip's size on disk.
// Usage: bench_schedgen [EVENTS...]   (default: 100000 1000000 10000000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <time.h>
#include <unistd.h>

#include "analyzer/lockset_table.h"
#include "analyzer/por_index.h"
#include "bench/schedgen/bench_workload.h"
#include "schedgen/clip_builder.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/clip_file.h"

using namespace pecan;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// CPU time of this thread: on a shared machine, less disturbed by other processes than wall
// time (both are printed).
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Shapes {
  std::optional<Finding> race_near;  // both accesses in the last percent of the trace
  std::optional<Finding> race_far;   // first access at mid-trace, second at the end
  std::optional<Finding> atomicity;  // a critical section's two accesses, a later write between
};

bool Conflict(const Trace& t, EventIndex a, EventIndex b) {
  return t.addr[a] == t.addr[b] && t.thread[a] != t.thread[b] &&
         (t.kind[a] == EventKind::kWrite || t.kind[b] == EventKind::kWrite);
}

Finding MakeFinding(const std::string& pattern, std::vector<EventIndex> events) {
  Finding f;
  f.id = pattern + "-bench";
  f.pattern = pattern;
  f.events = std::move(events);
  return f;
}

// Looks for each shape from the end of the trace backwards, so the findings sit late.
Shapes FindShapes(const Trace& t, const PorIndex& por, const LocksetTable& locks) {
  Shapes shapes;
  const EventIndex n = t.size_events();
  auto unprotected_mixed = [&](EventIndex e) {
    return (t.kind[e] == EventKind::kRead || t.kind[e] == EventKind::kWrite) &&
           bench::IsMixedVariable(t.addr[e]) && locks.Locks(locks.Of(e)).empty();
  };
  for (EventIndex j = n; j-- > 0 && !shapes.race_near;) {
    if (!unprotected_mixed(j)) continue;
    for (EventIndex i = j; i-- > (j > 2000 ? j - 2000 : 0);) {
      if (Conflict(t, i, j) && !locks.Exclusive(i, j) && por.Concurrent(i, j)) {
        shapes.race_near = MakeFinding("race", {i, j});
        break;
      }
    }
  }
  for (EventIndex j = n; j-- > 0 && !shapes.race_far;) {
    if (!unprotected_mixed(j)) continue;
    for (EventIndex i = n / 2; i < j; ++i) {
      if (Conflict(t, i, j) && !locks.Exclusive(i, j) && por.Concurrent(i, j)) {
        shapes.race_far = MakeFinding("race", {i, j});
        break;
      }
    }
  }
  // Atomicity: e1, e3 consecutive accesses of one thread to a mixed variable inside one
  // critical section, e2 a later unprotected write by another thread (W-W-R, R-W-R, ...).
  for (EventIndex k = n; k-- > 0 && !shapes.atomicity;) {
    if (!unprotected_mixed(k) || t.kind[k] != EventKind::kWrite) continue;
    for (EventIndex e3 = k; e3-- > (k > 5000 ? k - 5000 : 0) && !shapes.atomicity;) {
      if (t.addr[e3] != t.addr[k] || t.thread[e3] == t.thread[k]) continue;
      const auto oml = locks.OutermostAcquire(e3);
      if (!oml) continue;
      for (EventIndex e1 = e3; e1-- > *oml;) {
        if (t.thread[e1] != t.thread[e3] || t.addr[e1] != t.addr[e3]) continue;
        if (t.kind[e1] == EventKind::kWrite && t.kind[e3] == EventKind::kWrite) break;  // W-W-W
        shapes.atomicity = MakeFinding("atomicity", {e1, k, e3});
        break;
      }
    }
  }
  return shapes;
}

void Measure(const char* name, const std::optional<Finding>& finding, const Trace& trace,
             const PorIndex& por, const LocksetTable& locks) {
  if (!finding) {
    std::printf("  %-10s  (shape not found in this trace)\n", name);
    return;
  }
  const ScheduleGenerator generator(trace, por);
  // The first generation pays for fresh memory (page faults, expensive on a VM); later ones
  // reuse what the allocator kept. Both are printed: cold = the first, warm = median of 5 more.
  std::vector<double> wall, cpu;
  ClipPlan plan;
  double cold_cpu = 0;
  for (int rep = 0; rep < 6; ++rep) {
    const auto start = Clock::now();
    const double cpu_start = CpuSeconds();
    plan = generator.Generate(*finding);
    if (rep == 0) {
      cold_cpu = CpuSeconds() - cpu_start;
      continue;
    }
    cpu.push_back(CpuSeconds() - cpu_start);
    wall.push_back(Seconds(start));
  }
  const EventIndex first = *std::min_element(finding->events.begin(), finding->events.end());
  const EventIndex last = *std::max_element(finding->events.begin(), finding->events.end());
  if (!plan.ok) {
    std::printf("  %-10s  window %9llu  no clip: %s\n", name,
                static_cast<unsigned long long>(last - first), plan.reason.c_str());
    return;
  }
  const auto build_start = Clock::now();
  const double build_cpu_start = CpuSeconds();
  const proto::Clip clip = ClipFromPlan(trace, locks, *finding, plan, "");
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("bench_schedgen_" + std::to_string(::getpid()) + ".clip"))
                               .string();
  const uint64_t bytes = WriteClipFile(path, clip);
  const double write_seconds = Seconds(build_start);
  const double write_cpu = CpuSeconds() - build_cpu_start;
  std::filesystem::remove(path);
  std::printf("  %-10s window %8llu  steps %8zu  moved %4zu  %-13s  generate: cold %6.1f ms cpu,"
              " warm %6.1f ms cpu %6.1f ms wall;  build+write %6.1f ms cpu %6.1f ms wall;"
              "  clip %8llu B (%.2f B/step)\n",
              name, static_cast<unsigned long long>(last - first), plan.steps.size(),
              plan.moved_steps.size(), plan.generator.c_str(), cold_cpu * 1e3, Median(cpu) * 1e3,
              Median(wall) * 1e3, write_cpu * 1e3, write_seconds * 1e3,
              static_cast<unsigned long long>(bytes),
              static_cast<double>(bytes) / static_cast<double>(plan.steps.size()));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes{100000, 1000000, 10000000};
  if (argc > 1) {
    sizes.clear();
    for (int a = 1; a < argc; ++a) sizes.push_back(std::strtoull(argv[a], nullptr, 10));
  }
  std::printf("bench_schedgen: generation = scheduler + validator, per finding;\n"
              "build+write = ClipFromPlan + WriteClipFile (zstd level 3), once\n");
  for (uint64_t events : sizes) {
    auto start = Clock::now();
    const Trace trace = bench::MakeWorkload(events, 7);
    const double make_seconds = Seconds(start);
    start = Clock::now();
    const PorIndex por(trace);
    const LocksetTable locks(trace);
    const double index_seconds = Seconds(start);
    std::printf("trace of %llu events (%u threads): made in %.2f s; PorIndex + LocksetTable "
                "built once in %.2f s\n",
                static_cast<unsigned long long>(trace.size_events()), bench::kWorkers + 1,
                make_seconds, index_seconds);
    const Shapes shapes = FindShapes(trace, por, locks);
    Measure("race-near", shapes.race_near, trace, por, locks);
    Measure("race-far", shapes.race_far, trace, por, locks);
    Measure("atomicity", shapes.atomicity, trace, por, locks);
  }
  return 0;
}
