// atomic_counter_correct: eight threads count with std::atomic fetch_add and publish a result
// through a release/acquire flag; a spin lock built on std::atomic_flag guards a plain sum.
// Lines: none
// Expected failure: none
#include <atomic>
#include <cassert>
#include <thread>
#include <vector>

constexpr int kThreads = 8;
constexpr int kIncrements = 100;

static std::atomic<int> hits{0};
static std::atomic_flag sum_lock = ATOMIC_FLAG_INIT;
static long sum = 0;
static int answer = 0;
static std::atomic<bool> answer_ready{false};

int main() {
  std::thread publisher([] {
    answer = 42;
    answer_ready.store(true, std::memory_order_release);
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; t++)
    workers.emplace_back([t] {
      for (int i = 0; i < kIncrements; i++) hits.fetch_add(1, std::memory_order_relaxed);
      while (sum_lock.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
      sum += t;
      sum_lock.clear(std::memory_order_release);
    });
  while (!answer_ready.load(std::memory_order_acquire)) std::this_thread::yield();
  assert(answer == 42);
  for (auto &w : workers) w.join();
  publisher.join();
  assert(hits.load() == kThreads * kIncrements);
  assert(sum == kThreads * (kThreads - 1) / 2);
  return 0;
}
