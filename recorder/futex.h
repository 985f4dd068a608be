// Minimal futex wait/wake on a 32-bit atomic word, for the runtime's few sleeping waits
// (a producer whose ring is full, the idle writer, a child waiting for its FORK).
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace pecan::rt {

// Sleeps while *word == expected, at most `timeout_ns` (spurious returns are fine: callers
// re-check their condition).
inline void FutexWait(std::atomic<uint32_t>* word, uint32_t expected, long timeout_ns) {
  timespec timeout{timeout_ns / 1'000'000'000, timeout_ns % 1'000'000'000};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &timeout,
          nullptr, 0);
}

inline void FutexWakeAll(std::atomic<uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr,
          nullptr, 0);
}

}  // namespace pecan::rt
