// The C++ standard library's threads and synchronization under the recorder: std::thread,
// std::mutex, std::recursive_mutex, std::shared_mutex, std::condition_variable, std::atomic,
// std::call_once, new/delete and a function-local static. Prints addresses and counts.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace {

constexpr int kWorkers = 3;
constexpr int kIterations = 40;

std::mutex mutex;
std::recursive_mutex recursive;
std::shared_mutex shared;
std::mutex queue_mutex;
std::condition_variable queue_cv;
std::vector<int>* queue = nullptr;
std::atomic<long> hits{0};
std::atomic<int> published{0};
std::once_flag once;
long guarded = 0;            // under mutex
long recursive_guarded = 0;  // under recursive
long shared_value = 0;
int payload = 0;

struct Registry {
  Registry() : size(17) {}
  int size;
};

Registry& GetRegistry() {
  static Registry registry;  // thread-safe static initialization
  return registry;
}

void Worker(int id) {
  std::call_once(once, [] { payload = 99; });
  for (int i = 0; i < kIterations; ++i) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++guarded;
    }
    {
      std::lock_guard<std::recursive_mutex> outer(recursive);
      std::lock_guard<std::recursive_mutex> inner(recursive);
      ++recursive_guarded;
    }
    if (i % 4 == 0) {
      std::unique_lock<std::shared_mutex> lock(shared);
      ++shared_value;
    } else {
      std::shared_lock<std::shared_mutex> lock(shared);
      long seen = shared_value;
      (void)seen;
    }
    hits.fetch_add(1, std::memory_order_relaxed);
  }
  if (GetRegistry().size != 17) std::abort();
  int* boxed = new int(id);
  delete boxed;
}

void Consumer(int expected) {
  int received = 0;
  while (received < expected) {
    std::unique_lock<std::mutex> lock(queue_mutex);
    queue_cv.wait(lock, [] { return !queue->empty(); });
    queue->pop_back();
    ++received;
  }
  while (published.load(std::memory_order_acquire) == 0) {
  }
}

}  // namespace

int main() {
  queue = new std::vector<int>();
  std::thread consumer(Consumer, 5);
  std::vector<std::thread> workers;
  for (int i = 0; i < kWorkers; ++i) workers.emplace_back(Worker, i);
  for (int i = 0; i < 5; ++i) {
    {
      std::lock_guard<std::mutex> lock(queue_mutex);
      queue->push_back(i);
    }
    queue_cv.notify_one();
  }
  published.store(1, std::memory_order_release);
  int expected = 0;
  bool swapped = published.compare_exchange_strong(expected, 2);  // fails: value is 1
  for (auto& worker : workers) worker.join();
  consumer.join();

  std::printf("mutex %p\n", static_cast<void*>(&mutex));
  std::printf("recursive %p\n", static_cast<void*>(&recursive));
  std::printf("shared %p\n", static_cast<void*>(&shared));
  std::printf("queue_mutex %p\n", static_cast<void*>(&queue_mutex));
  std::printf("queue_cv %p\n", static_cast<void*>(&queue_cv));
  std::printf("hits %p\n", static_cast<void*>(&hits));
  std::printf("published %p\n", static_cast<void*>(&published));
  std::printf("count workers %d\n", kWorkers);
  std::printf("count iterations %d\n", kIterations);
  bool ok = guarded == kWorkers * kIterations && recursive_guarded == kWorkers * kIterations &&
            hits == kWorkers * kIterations && !swapped && payload == 99 && queue->empty();
  delete queue;
  return ok ? 0 : 1;
}
