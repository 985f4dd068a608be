// A correct bounded buffer: one producer and two consumers share it under one mutex and wait
// on condition variables. Every access holds the lock and every wait re-checks its condition.
//
// Expected with pecan hunt: no confirmed finding (predictions, if any, must all be refuted).
// Normal run: prints "sum 210" (the sum of 1..20) and exits 0.
#include <cassert>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

constexpr int kCapacity = 3;
constexpr int kItems = 20;
constexpr int kStop = -1;

class BoundedBuffer {
 public:
  void put(int item) {
    std::unique_lock<std::mutex> lock(mutex_);
    not_full_.wait(lock, [this] { return count_ < kCapacity; });
    items_[(head_ + count_) % kCapacity] = item;
    count_++;
    not_empty_.notify_one();
  }

  int take() {
    std::unique_lock<std::mutex> lock(mutex_);
    not_empty_.wait(lock, [this] { return count_ > 0; });
    int item = items_[head_];
    head_ = (head_ + 1) % kCapacity;
    count_--;
    not_full_.notify_one();
    return item;
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  int items_[kCapacity] = {};
  int head_ = 0;
  int count_ = 0;
};

BoundedBuffer buffer;
std::mutex sum_mutex;
long sum = 0;

void consume() {
  for (;;) {
    int item = buffer.take();
    if (item == kStop) return;
    std::lock_guard<std::mutex> guard(sum_mutex);
    sum += item;
  }
}

}  // namespace

int main() {
  std::thread consumers[2] = {std::thread(consume), std::thread(consume)};
  for (int i = 1; i <= kItems; i++) buffer.put(i);
  for (int i = 0; i < 2; i++) buffer.put(kStop);
  for (auto& consumer : consumers) consumer.join();
  std::printf("sum %ld\n", sum);
  assert(sum == kItems * (kItems + 1) / 2);
  return 0;
}
