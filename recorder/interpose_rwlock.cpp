// Reader-writer lock interposers: READ_LOCK/LOCK after acquiring, READ_UNLOCK/UNLOCK before
// releasing. glibc records the writer's tid in the lock, which tells the two unlocks apart.
#include <errno.h>
#include <pthread.h>

#include "recorder/blocked_call.h"
#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/sync_object_access.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

inline uint64_t Address(const volatile void* addr) {
  return reinterpret_cast<uintptr_t>(addr);
}

}  // namespace

// Each acquiring variant: `kind` is the event on success; `blocking` calls wait for the
// replay's turn first; `watched` ones (untimed) count as blocked for the deadlock watch, with
// what they wait for (a rwlock shared with other processes does not: another may release it).
#define PECAN_RWLOCK_ACQUIRE(name, kind, flags, blocking, watched, params, args)           \
  PECAN_EXPORT int name params {                                                           \
    if (!ThreadRecordsEventsBefore(kind, Address(lock))) return REAL(name) args;           \
    const uint64_t pc = PECAN_CALLER_PC();                                                 \
    RecordSyncObjectUse(lock, pc);                                                         \
    if (blocking) BeforeBlockingSync(kind, Address(lock), pc);                             \
    int result;                                                                            \
    {                                                                                      \
      BlockedInCall blocked(watched, Address(lock), pc,                                    \
                            watched != BlockedOn::kUnspecified && !lock->__data.__shared); \
      result = REAL(name) args;                                                            \
    }                                                                                      \
    if (blocking) AfterBlockingSync();                                                     \
    if (result == 0) RecordSync(kind, flags, Address(lock), 0, pc);                        \
    return result;                                                                         \
  }

using pecan::BlockedOn;
constexpr BlockedOn kNotWatched = BlockedOn::kUnspecified;

PECAN_RWLOCK_ACQUIRE(pthread_rwlock_rdlock, EventKind::kReadLock, 0, true, BlockedOn::kReadLock,
                     (pthread_rwlock_t * lock), (lock))
PECAN_RWLOCK_ACQUIRE(pthread_rwlock_tryrdlock, EventKind::kReadLock, pecan::kTryLockFlag, false,
                     kNotWatched, (pthread_rwlock_t * lock), (lock))
PECAN_RWLOCK_ACQUIRE(pthread_rwlock_timedrdlock, EventKind::kReadLock, pecan::kTryLockFlag, true,
                     kNotWatched, (pthread_rwlock_t * lock, const timespec* abstime),
                     (lock, abstime))
PECAN_RWLOCK_ACQUIRE(pthread_rwlock_clockrdlock, EventKind::kReadLock, pecan::kTryLockFlag, true,
                     kNotWatched,
                     (pthread_rwlock_t * lock, clockid_t clock, const timespec* abstime),
                     (lock, clock, abstime))
PECAN_RWLOCK_ACQUIRE(pthread_rwlock_wrlock, EventKind::kLock, 0, true, BlockedOn::kWriteLock,
                     (pthread_rwlock_t * lock), (lock))
PECAN_RWLOCK_ACQUIRE(pthread_rwlock_trywrlock, EventKind::kLock, pecan::kTryLockFlag, false,
                     kNotWatched, (pthread_rwlock_t * lock), (lock))
PECAN_RWLOCK_ACQUIRE(pthread_rwlock_timedwrlock, EventKind::kLock, pecan::kTryLockFlag, true,
                     kNotWatched, (pthread_rwlock_t * lock, const timespec* abstime),
                     (lock, abstime))
PECAN_RWLOCK_ACQUIRE(pthread_rwlock_clockwrlock, EventKind::kLock, pecan::kTryLockFlag, true,
                     kNotWatched,
                     (pthread_rwlock_t * lock, clockid_t clock, const timespec* abstime),
                     (lock, clock, abstime))

PECAN_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t* lock) {
  if (ThreadRecordsEvents()) {
    const bool writer = lock->__data.__cur_writer == tls_thread.tid;
    RecordSync(writer ? EventKind::kUnlock : EventKind::kReadUnlock, 0, Address(lock), 0,
               PECAN_CALLER_PC());
  }
  return REAL(pthread_rwlock_unlock)(lock);
}
