// Benchmark program: producers and consumers around a bounded queue guarded by std::mutex and
// two std::condition_variables; each item carries a little work (a hash). Lock-heavy.
// Usage: producer_consumer [ITEMS=300000] [PRODUCERS=2] [CONSUMERS=2]; prints a checksum.
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace {

class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {}

  void Push(uint64_t item) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [this] { return items_.size() < capacity_; });
    items_.push_back(item);
    not_empty_.notify_one();
  }

  // False once the queue is closed and drained.
  bool Pop(uint64_t& item) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [this] { return !items_.empty() || closed_; });
    if (items_.empty()) return false;
    item = items_.front();
    items_.pop_front();
    not_full_.notify_one();
    return true;
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }

 private:
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<uint64_t> items_;
  bool closed_ = false;
};

uint64_t Work(uint64_t value) {
  for (int round = 0; round < 64; ++round) value = value * 6364136223846793005ull + 1442695040888963407ull;
  return value >> 17;
}

}  // namespace

int main(int argc, char** argv) {
  long items = argc > 1 ? std::atol(argv[1]) : 300000;
  int producers = argc > 2 ? std::atoi(argv[2]) : 2;
  int consumers = argc > 3 ? std::atoi(argv[3]) : 2;
  if (items <= 0 || producers <= 0 || consumers <= 0) {
    std::fprintf(stderr, "usage: producer_consumer [ITEMS] [PRODUCERS] [CONSUMERS]\n");
    return 2;
  }
  BoundedQueue queue(64);
  std::mutex total_mutex;
  uint64_t total = 0;

  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      for (long i = p; i < items; i += producers) queue.Push(Work(static_cast<uint64_t>(i)));
    });
  }
  std::vector<std::thread> consumer_threads;
  for (int c = 0; c < consumers; ++c) {
    consumer_threads.emplace_back([&] {
      uint64_t item = 0;
      uint64_t sum = 0;
      while (queue.Pop(item)) sum += Work(item);
      std::lock_guard<std::mutex> lock(total_mutex);
      total += sum;
    });
  }
  for (auto& thread : threads) thread.join();
  queue.Close();
  for (auto& thread : consumer_threads) thread.join();
  std::printf("producer_consumer items=%ld checksum=%llu\n", items, static_cast<unsigned long long>(total));
  return 0;
}
