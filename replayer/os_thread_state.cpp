// /proc/self/task/<tid>/stat parsing for the watchdog.
#include "replayer/os_thread_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pecan::replay {

OsThreadState ReadOsThreadState(int32_t tid) {
  if (tid <= 0) return OsThreadState::kUnknown;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", static_cast<int>(tid));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? OsThreadState::kGone : OsThreadState::kUnknown;
  char buffer[512];
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return OsThreadState::kUnknown;
  buffer[n] = '\0';
  return ParseOsThreadState(buffer);
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
