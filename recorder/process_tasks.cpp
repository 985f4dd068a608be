// Reading /proc/self/task/<tid>/stat without allocating (the writer calls this while the
// program runs; opendir is the one allocation, inside libc).
#include "recorder/process_tasks.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

namespace pecan::rt {
namespace {

char StateOf(const char* tid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return '\0';
  char stat[256];
  const ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (n <= 0) return '\0';
  stat[n] = '\0';
  const char* name_end = strrchr(stat, ')');  // the name may hold spaces and parentheses
  return name_end != nullptr && name_end[1] == ' ' ? name_end[2] : '\0';
}

}  // namespace

size_t LiveThreadCount() {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return 0;
  size_t count = 0;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    const char state = StateOf(entry->d_name);
    if (state != '\0' && state != 'Z' && state != 'X') ++count;
  }
  closedir(tasks);
  return count;
}

char TaskState(pid_t tid) {
  char name[16];
  snprintf(name, sizeof name, "%d", static_cast<int>(tid));
  return StateOf(name);
}

}  // namespace pecan::rt
