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
  // 'S' in nanosleep or clock_nanosleep (sleep, usleep, std::this_thread::sleep_for): back by
  // itself when its time is up
  kTimedSleep,
  kSleeping,  // 'S', 't', 'T', ...: waiting in another system call, stopped, or traced
  kGone,      // no such thread (exited)
  kUnknown,   // /proc not readable
};

// Reads /proc/self/task/<tid>/stat (and, for a sleeping thread, .../syscall) without allocating
// (safe to call from the watchdog thread). A sleeper whose syscall file says "running" has woken
// between the two reads: kRunnable, never kSleeping (see IsRunningSyscall).
OsThreadState ReadOsThreadState(int32_t tid);
// The state in the text of a stat file ("tid (comm) S ..."); a sleep is kSleeping here.
OsThreadState ParseOsThreadState(const char* stat);
// Whether the text of a syscall file ("230 0x1 ...": the call's number, then its arguments)
// names nanosleep or clock_nanosleep.
bool IsTimedSleepCall(const char* syscall);
// Whether the text of a syscall file says the thread is not blocked ("running"): read after a
// stat file that said it sleeps, it woke in between.
bool IsRunningSyscall(const char* syscall);

}  // namespace pecan::replay
