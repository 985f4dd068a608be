#include "workflow/job_runner.h"

namespace pecan::workflow {

void RunJobs(size_t count, size_t parallel, const std::function<void(size_t)>& job,
             const std::function<void(size_t)>& on_done) {
  std::atomic<size_t> next{0};
  std::mutex done_mutex;
  std::exception_ptr first_error;
  auto worker = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      std::exception_ptr error;
      try {
        job(i);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard<std::mutex> guard(done_mutex);
      if (error && !first_error) first_error = error;
      if (on_done) on_done(i);
    }
  };
  size_t threads = std::min(std::max<size_t>(parallel, 1), count);
  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; t++) pool.emplace_back(worker);
    for (auto& thread : pool) thread.join();
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace pecan::workflow
