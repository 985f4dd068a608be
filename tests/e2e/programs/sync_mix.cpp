// A correct program that uses every kind of synchronization at once: eight workers in barrier
// phases, a bounded queue with condition variables between producers and consumers, atomics
// with release/acquire publication, a shared_mutex and a recursive mutex. Its recorded run must
// replay to completion, every time. Exits 0 when every count adds up.
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace {

constexpr int kWorkers = 8;
constexpr int kPhases = 3;
constexpr int kItems = 40;  // per producer

pthread_barrier_t phase_barrier;
std::atomic<long> phase_sum{0};
std::shared_mutex table_lock;
long table[kWorkers] = {};
std::recursive_mutex nested;
long nested_count = 0;

std::mutex queue_lock;
std::condition_variable not_empty, not_full;
std::deque<int> queue;
long consumed_sum = 0;
int consumed_count = 0;

std::atomic<int> published{0};
int payload = 0;

void Worker(int id) {
  for (int phase = 0; phase < kPhases; ++phase) {
    phase_sum.fetch_add(id + phase, std::memory_order_relaxed);
    {
      std::unique_lock<std::shared_mutex> write(table_lock);
      table[id] += phase;
    }
    {
      std::shared_lock<std::shared_mutex> read(table_lock);
      long seen = table[(id + 1) % kWorkers];
      (void)seen;
    }
    {
      std::lock_guard<std::recursive_mutex> outer(nested);
      std::lock_guard<std::recursive_mutex> inner(nested);
      ++nested_count;
    }
    pthread_barrier_wait(&phase_barrier);
  }
}

void Producer(int base) {
  for (int i = 0; i < kItems; ++i) {
    std::unique_lock<std::mutex> guard(queue_lock);
    not_full.wait(guard, [] { return queue.size() < 4; });
    queue.push_back(base + i);
    not_empty.notify_one();
  }
}

void Consumer(int items) {
  for (int i = 0; i < items; ++i) {
    std::unique_lock<std::mutex> guard(queue_lock);
    not_empty.wait(guard, [] { return !queue.empty(); });
    consumed_sum += queue.front();
    ++consumed_count;
    queue.pop_front();
    not_full.notify_one();
  }
}

}  // namespace

int main() {
  pthread_barrier_init(&phase_barrier, nullptr, kWorkers);
  std::vector<std::thread> threads;
  for (int id = 0; id < kWorkers; ++id) threads.emplace_back(Worker, id);
  threads.emplace_back(Producer, 0);
  threads.emplace_back(Producer, 1000);
  threads.emplace_back(Consumer, kItems);
  threads.emplace_back(Consumer, kItems);
  std::thread reader([] {
    while (published.load(std::memory_order_acquire) == 0) std::this_thread::yield();
    if (payload != 7) std::printf("payload %d\n", payload);
  });
  payload = 7;
  published.store(1, std::memory_order_release);
  for (auto& thread : threads) thread.join();
  reader.join();
  pthread_barrier_destroy(&phase_barrier);

  long expected_phase_sum = 0;
  for (int id = 0; id < kWorkers; ++id)
    for (int phase = 0; phase < kPhases; ++phase) expected_phase_sum += id + phase;
  long expected_consumed = 0;
  for (int i = 0; i < kItems; ++i) expected_consumed += i + 1000 + i;
  const bool ok = phase_sum == expected_phase_sum && consumed_count == 2 * kItems &&
                  consumed_sum == expected_consumed && nested_count == kWorkers * kPhases;
  std::printf("sync_mix %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
