// /proc/self/task/<tid>/stat parsing for the watchdog.
#include "replayer/os_thread_state.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pecan::replay {
namespace {

// Reads /proc/self/task/<tid>/<file> into `buffer`: false (errno set) when it cannot.
bool ReadTaskFile(int32_t tid, const char* file, char (&buffer)[512]) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/%s", static_cast<int>(tid), file);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  const int read_error = n < 0 ? errno : EIO;
  close(fd);
  if (n <= 0) {
    errno = read_error;
    return false;
  }
  buffer[n] = '\0';
  return true;
}

}  // namespace

OsThreadState ReadOsThreadState(int32_t tid) {
  if (tid <= 0) return OsThreadState::kUnknown;
  char buffer[512];
  if (!ReadTaskFile(tid, "stat", buffer))
    return errno == ENOENT ? OsThreadState::kGone : OsThreadState::kUnknown;
  const OsThreadState state = ParseOsThreadState(buffer);
  if (state != OsThreadState::kSleeping || !ReadTaskFile(tid, "syscall", buffer)) return state;
  // The thread slept when its stat was read; "running" now means it woke since (a sleep that
  // ended just then): it runs, and is not waiting in some other call.
  if (IsRunningSyscall(buffer)) return OsThreadState::kRunnable;
  return IsTimedSleepCall(buffer) ? OsThreadState::kTimedSleep : state;
}

bool IsRunningSyscall(const char* syscall) {
  return std::strncmp(syscall, "running", 7) == 0;
}

bool IsTimedSleepCall(const char* syscall) {
  char* end = nullptr;
  const long number = std::strtol(syscall, &end, 10);
  if (end == syscall || (*end != ' ' && *end != '\n' && *end != '\0')) return false;  // "running"
#ifdef SYS_nanosleep
  if (number == SYS_nanosleep) return true;
#endif
  return number == SYS_clock_nanosleep;
}

OsThreadState ParseOsThreadState(const char* stat) {
  // "tid (comm) S ...": comm may contain spaces and parentheses, so look after the last ')'.
  const char* close_paren = std::strrchr(stat, ')');
  if (close_paren == nullptr || close_paren[1] != ' ' || close_paren[2] == '\0')
    return OsThreadState::kUnknown;
  char state = close_paren[2];
  if (state == 'R') return OsThreadState::kRunnable;
  if (state == 'D') return OsThreadState::kInIo;
  if (state == 'X' || state == 'Z') return OsThreadState::kGone;
  return OsThreadState::kSleeping;
}

}  // namespace pecan::replay
