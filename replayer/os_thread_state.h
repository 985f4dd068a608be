// What the kernel says a thread is doing (running, sleeping, ...), read from /proc. The
// watchdog uses it to tell a turn holder that computes from one that sleeps in a system call.
#pragma once

#include <cstdint>

namespace pecan::replay {

enum class OsThreadState : uint8_t {
  kRunnable,  // 'R': on a CPU or waiting for one
  // 'D': in uninterruptible sleep, i.e. disk I/O or a page fault: busy, and back by itself
  // (never waiting for another thread of the program)
  kInIo,
  kSleeping,  // 'S', 't', 'T', ...: waiting in a system call, stopped, or traced
  kGone,      // no such thread (exited)
  kUnknown,   // /proc not readable
};

// Reads /proc/self/task/<tid>/stat without allocating (safe to call from the watchdog thread).
OsThreadState ReadOsThreadState(int32_t tid);
// The state in the text of such a file ("tid (comm) S ...").
OsThreadState ParseOsThreadState(const char* stat);

}  // namespace pecan::replay
