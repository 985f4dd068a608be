// Which recorded thread a pthread_t names: pthread_join and friends get a pthread_t but the
// JOIN event needs the child's creation serial.
#pragma once

#include <pthread.h>

#include <cstdint>
#include <optional>

namespace pecan::rt {

// The creator registers the child before the child can run; join looks it up and forgets
// it; a detached thread forgets itself when it ends (its handle may then be reused).
void RememberThreadHandle(pthread_t handle, uint32_t serial, bool detached);
std::optional<uint32_t> FindThreadHandle(pthread_t handle);
// Forgets `handle` if it still names thread `serial` (it may already name a newer thread).
void ForgetThreadHandle(pthread_t handle, uint32_t serial);
void MarkThreadHandleDetached(pthread_t handle);
// Forgets `handle` if it was detached and still names `serial` (called by the ending thread).
void ForgetThreadHandleIfDetached(pthread_t handle, uint32_t serial);

// Fork: the forking thread holds the table's lock across fork(); the child starts empty.
void LockThreadHandlesForFork();
void UnlockThreadHandlesAfterFork(bool in_child);

}  // namespace pecan::rt
