// Runs a batch of independent jobs on a bounded number of threads (hunt's replays, triage's
// analyses): at most N at once, so memory and CPU stay bounded whatever the batch size.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pecan::workflow {

// Calls job(i) for every i in [0, count), at most `parallel` at a time (at least one), and
// returns when all have finished. A job that throws does not stop the others; the first
// exception is rethrown at the end. `on_done(i)` (optional) runs after each job, serialized.
void RunJobs(size_t count, size_t parallel, const std::function<void(size_t)>& job,
             const std::function<void(size_t)>& on_done = {});

}  // namespace pecan::workflow
