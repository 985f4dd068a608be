// A per-thread wake-up signal built on a futex: the current turn holder posts it to hand the
// turn over; the waiting thread sleeps on it for a bounded time, so no wait can hang.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace pecan::replay {

class TurnSemaphore {
 public:
  // A ticket taken before checking the condition one waits for; a Post() after that check
  // changes the ticket, so WaitUntilPosted(ticket) returns at once instead of missing it.
  uint32_t Ticket() const { return sequence_.load(std::memory_order_acquire); }

  // Wakes the thread sleeping in WaitUntilPosted (if any). Costs one futex system call.
  void Post();

  // Sleeps until a Post() newer than `ticket`, or until `timeout` passed (then it returns
  // false). Spurious returns are possible: callers re-check their condition in a loop.
  bool WaitUntilPosted(uint32_t ticket, std::chrono::nanoseconds timeout);

 private:
  std::atomic<uint32_t> sequence_{0};
};

}  // namespace pecan::replay
