// deadlock_swap: Inventory::swap_with() locks its own mutex, then the other's; two threads
// swapping the same pair in opposite directions deadlock (ABBA with std::mutex).
// Lines: 15, 16 (marked BUG)
// Expected failure: deadlock
#include <cassert>
#include <mutex>
#include <thread>
#include <vector>

class Inventory {
public:
  explicit Inventory(int first) : items_{first} {}

  void swap_with(Inventory &other) {
    std::lock_guard<std::mutex> mine(mutex_);        // BUG: should be std::scoped_lock of both
    std::lock_guard<std::mutex> theirs(other.mutex_); // BUG
    items_.swap(other.items_);
  }

  int front() {
    std::lock_guard<std::mutex> guard(mutex_);
    return items_.front();
  }

private:
  std::mutex mutex_;
  std::vector<int> items_;
};

int main() {
  Inventory left(1), right(2);
  std::thread a([&] { left.swap_with(right); });
  std::thread b([&] { right.swap_with(left); });
  a.join();
  b.join();
  assert(left.front() == 1 && right.front() == 2);
  return 0;
}
