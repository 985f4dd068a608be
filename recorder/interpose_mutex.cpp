// Mutex and spinlock interposers: LOCK after acquiring, UNLOCK before releasing. A recursive
// mutex is reported once, at its outermost acquire/release (glibc's recursion count tells).
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

// glibc's mutex kind lives in the low bits of __kind (robust/PI/pshared flags above).
constexpr int kMutexKindMask = 3;

// glibc's PTHREAD_MUTEX_PSHARED_BIT in __kind: a mutex shared with other processes, which one
// of them may unlock (not a wait the deadlock watch can judge).
constexpr int kMutexSharedBit = 128;

bool ProcessPrivate(const pthread_mutex_t* m) {
  return (m->__data.__kind & kMutexSharedBit) == 0;
}

bool IsRecursive(const pthread_mutex_t* m) {
  return (m->__data.__kind & kMutexKindMask) == PTHREAD_MUTEX_RECURSIVE_NP;
}

// After a successful lock: true if the thread already held it (recursion count now above 1).
bool InnerRecursiveAcquire(const pthread_mutex_t* m) {
  return IsRecursive(m) && m->__data.__count > 1;
}

// Before an unlock: true if the mutex stays held afterwards, or is not held by this thread
// (the unlock will fail with EPERM for recursive and error-checking mutexes).
bool UnlockReleasesNothing(const pthread_mutex_t* m) {
  const int kind = m->__data.__kind & kMutexKindMask;
  if (kind == PTHREAD_MUTEX_RECURSIVE_NP || kind == PTHREAD_MUTEX_ERRORCHECK_NP) {
    if (m->__data.__owner != tls_thread.tid) return true;
    return kind == PTHREAD_MUTEX_RECURSIVE_NP && m->__data.__count > 1;
  }
  return false;
}

bool Acquired(int result) {
  return result == 0 || result == EOWNERDEAD;
}

void RecordLockIfOutermost(pthread_mutex_t* m, uint8_t flags, uint64_t pc) {
  if (!InnerRecursiveAcquire(m)) RecordSync(EventKind::kLock, flags, Address(m), 0, pc);
}

// Before a blocking lock: a recursive mutex this thread holds already is re-acquired without
// an event, so the replay must not wait for a LOCK step.
bool ReacquiresRecursive(const pthread_mutex_t* m) {
  return IsRecursive(m) && m->__data.__owner == tls_thread.tid;
}

void BeforeMutexLock(pthread_mutex_t* m, uint64_t pc) {
  RecordSyncObjectUse(m, pc);
  if (!ReacquiresRecursive(m)) BeforeBlockingSync(EventKind::kLock, Address(m), pc);
}

}  // namespace

PECAN_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  if (!ThreadRecordsEventsBefore(EventKind::kLock, Address(m))) return REAL(pthread_mutex_lock)(m);
  const uint64_t pc = PECAN_CALLER_PC();
  BeforeMutexLock(m, pc);
  int result;
  {
    BlockedInCall blocked(pecan::BlockedOn::kMutex, Address(m), pc, ProcessPrivate(m));
    result = REAL(pthread_mutex_lock)(m);
  }
  AfterBlockingSync();
  if (Acquired(result)) RecordLockIfOutermost(m, 0, pc);
  return result;
}

PECAN_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  if (!ThreadRecordsEvents()) return REAL(pthread_mutex_trylock)(m);
  const uint64_t pc = PECAN_CALLER_PC();
  RecordSyncObjectUse(m, pc);
  int result = REAL(pthread_mutex_trylock)(m);
  if (Acquired(result)) RecordLockIfOutermost(m, pecan::kTryLockFlag, pc);
  return result;
}

PECAN_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const timespec* abstime) {
  if (!ThreadRecordsEventsBefore(EventKind::kLock, Address(m)))
    return REAL(pthread_mutex_timedlock)(m, abstime);
  const uint64_t pc = PECAN_CALLER_PC();
  BeforeMutexLock(m, pc);
  int result = REAL(pthread_mutex_timedlock)(m, abstime);
  AfterBlockingSync();
  if (Acquired(result)) RecordLockIfOutermost(m, pecan::kTryLockFlag, pc);
  return result;
}

PECAN_EXPORT int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                                         const timespec* abstime) {
  if (!ThreadRecordsEventsBefore(EventKind::kLock, Address(m)))
    return REAL(pthread_mutex_clocklock)(m, clock, abstime);
  const uint64_t pc = PECAN_CALLER_PC();
  BeforeMutexLock(m, pc);
  int result = REAL(pthread_mutex_clocklock)(m, clock, abstime);
  AfterBlockingSync();
  if (Acquired(result)) RecordLockIfOutermost(m, pecan::kTryLockFlag, pc);
  return result;
}

PECAN_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  if (ThreadRecordsEventsBefore(EventKind::kUnlock, Address(m)) && !UnlockReleasesNothing(m)) {
    RecordSync(EventKind::kUnlock, 0, Address(m), 0, PECAN_CALLER_PC());
  }
  return REAL(pthread_mutex_unlock)(m);
}

PECAN_EXPORT int pthread_spin_lock(pthread_spinlock_t* lock) {
  if (!ThreadRecordsEventsBefore(EventKind::kLock, Address(lock)))
    return REAL(pthread_spin_lock)(lock);
  const uint64_t pc = PECAN_CALLER_PC();
  RecordSyncObjectUse(lock, pc);
  BeforeBlockingSync(EventKind::kLock, Address(lock), pc);
  int result;
  {
    BlockedInCall blocked(pecan::BlockedOn::kSpinlock, Address(lock), pc);
    result = REAL(pthread_spin_lock)(lock);
  }
  AfterBlockingSync();
  if (result == 0) RecordSync(EventKind::kLock, 0, Address(lock), 0, pc);
  return result;
}

PECAN_EXPORT int pthread_spin_trylock(pthread_spinlock_t* lock) {
  if (!ThreadRecordsEvents()) return REAL(pthread_spin_trylock)(lock);
  const uint64_t pc = PECAN_CALLER_PC();
  RecordSyncObjectUse(lock, pc);
  int result = REAL(pthread_spin_trylock)(lock);
  if (result == 0) RecordSync(EventKind::kLock, pecan::kTryLockFlag, Address(lock), 0, pc);
  return result;
}

PECAN_EXPORT int pthread_spin_unlock(pthread_spinlock_t* lock) {
  if (ThreadRecordsEvents()) RecordSync(EventKind::kUnlock, 0, Address(lock), 0, PECAN_CALLER_PC());
  return REAL(pthread_spin_unlock)(lock);
}
