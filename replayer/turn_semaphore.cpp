// Futex-based TurnSemaphore: a sequence number the waker bumps and the sleeper waits on.
#include "replayer/turn_semaphore.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <ctime>

namespace pecan::replay {
namespace {

long Futex(std::atomic<uint32_t>* word, int op, uint32_t value, const timespec* timeout) {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, value, timeout, nullptr, 0);
}

}  // namespace

void TurnSemaphore::Post() {
  sequence_.fetch_add(1, std::memory_order_release);
  Futex(&sequence_, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
}

bool TurnSemaphore::WaitUntilPosted(uint32_t ticket, std::chrono::nanoseconds timeout) {
  if (sequence_.load(std::memory_order_acquire) != ticket) return true;
  timespec relative{};
  relative.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000'000);
  relative.tv_nsec = static_cast<long>(timeout.count() % 1'000'000'000);
  long rc = Futex(&sequence_, FUTEX_WAIT_PRIVATE, ticket, &relative);
  if (rc == -1 && errno == ETIMEDOUT) return false;
  return true;
}

}  // namespace pecan::replay
