// Benchmark program: a lock-free Treiber stack (tagged-index head against ABA) shared by all
// threads, plus shared std::atomic counters. Atomics-heavy: every step is a load, CAS or
// fetch_add with acquire/release ordering, and no thread ever waits for another.
// Usage: lockfree_stack [OPERATIONS=1500000] [THREADS=4]; prints a checksum.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

class LockFreeStack {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;

  explicit LockFreeStack(uint32_t capacity) : nodes_(capacity) {
    for (uint32_t i = 0; i < capacity; ++i) {
      nodes_[i].value = i;
      Push(i);
    }
  }

  void Push(uint32_t node) {
    uint64_t head = head_.load(std::memory_order_relaxed);
    do {
      nodes_[node].next.store(Index(head), std::memory_order_relaxed);
    } while (!head_.compare_exchange_weak(head, Pack(Tag(head) + 1, node), std::memory_order_release,
                                          std::memory_order_relaxed));
  }

  // kEmpty when the stack is empty.
  uint32_t Pop() {
    uint64_t head = head_.load(std::memory_order_acquire);
    for (;;) {
      uint32_t node = Index(head);
      if (node == kEmpty) return kEmpty;
      uint32_t next = nodes_[node].next.load(std::memory_order_relaxed);
      if (head_.compare_exchange_weak(head, Pack(Tag(head) + 1, next), std::memory_order_acquire,
                                      std::memory_order_acquire)) {
        return node;
      }
    }
  }

  uint64_t& value(uint32_t node) { return nodes_[node].value; }

 private:
  struct Node {
    std::atomic<uint32_t> next{kEmpty};
    uint64_t value = 0;  // owned by whoever popped the node
  };
  static uint64_t Pack(uint32_t tag, uint32_t index) { return (uint64_t{tag} << 32) | index; }
  static uint32_t Tag(uint64_t head) { return static_cast<uint32_t>(head >> 32); }
  static uint32_t Index(uint64_t head) { return static_cast<uint32_t>(head); }

  std::vector<Node> nodes_;
  alignas(64) std::atomic<uint64_t> head_{Pack(0, kEmpty)};
};

uint64_t Work(uint64_t value) {
  for (int round = 0; round < 8; ++round) value = value * 6364136223846793005ull + 1442695040888963407ull;
  return value >> 17;
}

constexpr int kHistogramBuckets = 16;

}  // namespace

int main(int argc, char** argv) {
  long operations = argc > 1 ? std::atol(argv[1]) : 1500000;
  int threads = argc > 2 ? std::atoi(argv[2]) : 4;
  if (operations <= 0 || threads <= 0 || threads > 512) {
    std::fprintf(stderr, "usage: lockfree_stack [OPERATIONS] [THREADS]\n");
    return 2;
  }
  // More nodes than threads: a thread holds at most one, so a pop always finds one.
  LockFreeStack stack(static_cast<uint32_t>(threads) * 4);
  std::atomic<uint64_t> completed{0};
  std::atomic<uint64_t> empty_pops{0};
  std::atomic<uint64_t> histogram[kHistogramBuckets] = {};

  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (long i = t; i < operations; i += threads) {
        uint32_t node = stack.Pop();
        if (node == LockFreeStack::kEmpty) {
          empty_pops.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        uint64_t value = Work(stack.value(node) + static_cast<uint64_t>(i));
        stack.value(node) = value;
        stack.Push(node);
        histogram[value % kHistogramBuckets].fetch_add(1, std::memory_order_relaxed);
        completed.fetch_add(1, std::memory_order_acq_rel);
      }
    });
  }
  for (auto& worker : workers) worker.join();
  uint64_t buckets = 0;
  for (auto& bucket : histogram) buckets += bucket.load();
  std::printf("lockfree_stack operations=%ld completed=%llu histogram=%llu empty=%llu\n", operations,
              static_cast<unsigned long long>(completed.load()), static_cast<unsigned long long>(buckets),
              static_cast<unsigned long long>(empty_pops.load()));
  return 0;
}
