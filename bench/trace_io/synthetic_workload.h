// A synthetic but realistic event stream for the trace I/O benchmark: worker threads walking
// arrays with a stride, reading globals, taking a lock around a shared counter, atomics and
// function entry/exit, interleaved in scheduling runs — generated one event at a time.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "trace_format/trace.h"

namespace pecan::bench {

struct WorkloadShape {
  uint32_t workers = 8;
  uint32_t mean_run = 64;  // mean number of consecutive events of one thread
  uint64_t seed = 1;
};

class SyntheticWorkload {
 public:
  explicit SyntheticWorkload(const WorkloadShape& shape);

  // Table entries the events refer to; add them to the writer before the first event.
  const std::vector<ThreadInfo>& threads() const { return threads_; }
  const std::vector<SiteInfo>& sites() const { return sites_; }
  const std::vector<AddressName>& names() const { return names_; }
  const ModuleInfo& module() const { return module_; }

  Event Next();

 private:
  struct Worker {
    uint64_t step = 0;             // position in the worker's loop body
    uint64_t iteration = 0;        // loop iterations done
    uint64_t a = 0, b = 0, c = 0;  // array cursors
    int depth = 0;
  };
  Event Step(ThreadId thread);

  WorkloadShape shape_;
  std::mt19937_64 rng_;
  std::geometric_distribution<uint32_t> run_length_;
  std::vector<ThreadInfo> threads_;
  std::vector<SiteInfo> sites_;
  std::vector<AddressName> names_;
  ModuleInfo module_;
  std::vector<Worker> workers_;
  ThreadId current_ = 0;
  uint32_t left_in_run_ = 0;
  uint64_t emitted_ = 0;
};

}  // namespace pecan::bench
