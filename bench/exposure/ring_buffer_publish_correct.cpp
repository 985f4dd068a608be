// ring_buffer_publish_correct: the fixed twin; the producer writes the slot, then publishes it
// by storing `head` with release.
// Lines: none
// Expected failure: none
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <thread>

constexpr std::size_t kSlots = 8;
constexpr int kMessages = 16;

static int slots[kSlots];
static std::atomic<std::size_t> head{0}, tail{0};

static void produce(int value) {
  std::size_t h = head.load(std::memory_order_relaxed);
  while (h - tail.load(std::memory_order_acquire) == kSlots)
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  slots[h % kSlots] = value;
  head.store(h + 1, std::memory_order_release);
}

static int consume() {
  std::size_t t = tail.load(std::memory_order_relaxed);
  while (head.load(std::memory_order_acquire) == t)
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  int value = slots[t % kSlots];
  tail.store(t + 1, std::memory_order_release);
  return value;
}

int main() {
  std::thread consumer([] {
    for (int i = 1; i <= kMessages; i++) assert(consume() == i);
  });
  for (int i = 1; i <= kMessages; i++) produce(i);
  consumer.join();
  return 0;
}
