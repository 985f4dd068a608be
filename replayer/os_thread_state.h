// What the kernel says a thread is doing (running, sleeping, ...), read from /proc. The
// watchdog uses it to tell a turn holder that computes from one that sleeps in a system call.
#pragma once

#include <cstdint>

namespace pecan::replay {

enum class OsThreadState : uint8_t {
  kRunnable,  // 'R': on a CPU or waiting for one
  kSleeping,  // 'S', 'D', 't', 'T', ...: in a system call, stopped, or traced
  kGone,      // no such thread (exited)
  kUnknown,   // /proc not readable
};

// Reads /proc/self/task/<tid>/stat without allocating (safe to call from the watchdog thread).
OsThreadState ReadOsThreadState(int32_t tid);

}  // namespace pecan::replay
