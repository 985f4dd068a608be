// What the kernel says about this process's threads (/proc/self/task): how many are alive and
// whether one is asleep. Slow (files are read); for the writer's occasional checks only.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace pecan::rt {

// Live threads of this process right now (entries of /proc/self/task that are not zombies: a
// main thread that called pthread_exit stays listed as one until the whole process ends).
size_t LiveThreadCount();

// The state letter of thread `tid` (R running or runnable, S sleeping, D uninterruptible, Z
// zombie, ...), or '\0' when it cannot be read (the thread is gone).
char TaskState(pid_t tid);

}  // namespace pecan::rt
