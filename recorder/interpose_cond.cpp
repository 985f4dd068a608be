// Condition-variable interposers. A wait is UNLOCK(mutex) while still holding it, the real wait,
// then WAIT(cond) and LOCK(mutex) once it returned holding the mutex again. NOTIFY/NOTIFY_ALL
// are stamped before the signal, so a woken waiter's WAIT always comes later. In replay, the
// schedule replaces the real wait (see ReplayedWait).
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

void BeforeWait(pthread_mutex_t* mutex, uint64_t pc) {
  RecordSync(EventKind::kUnlock, 0, Address(mutex), 0, pc);
}

void AfterWait(pthread_cond_t* cond, pthread_mutex_t* mutex, int result, uint64_t pc) {
  RecordSync(EventKind::kWait, result == ETIMEDOUT ? pecan::kWaitTimedOutFlag : 0, Address(cond), 0,
             pc);
  RecordSync(EventKind::kLock, 0, Address(mutex), 0, pc);
}

// While a replay follows its schedule, a wait is release, wait for the turn of the WAIT step,
// re-acquire: a spurious wake-up, which is always legal, so the schedule decides when the
// waiter goes on (it went on in the recording only after the notify the schedule keeps first).
bool ReplaysWait() {
  return (tls_thread.gates & kGateReplay) && ReplayScheduling();
}

// `real_wait` is the program's own call (wait, timedwait, clockwait), made when the schedule let
// go of a waiter no notify released because the run looked stuck: whether it stays stuck must
// be decided by the real condition variable, not by a spurious wake-up.
template <typename RealWait>
int ReplayedWait(pthread_cond_t* cond, pthread_mutex_t* mutex, uint64_t pc, RealWait real_wait) {
  BeforeWait(mutex, pc);
  REAL(pthread_mutex_unlock)(mutex);
  BeforeBlockingSync(EventKind::kWait, Address(cond), pc);
  AfterBlockingSync();
  if (ReplayConfirmingStuck()) {
    REAL(pthread_mutex_lock)(mutex);
    const int result = real_wait();
    AfterWait(cond, mutex, result, pc);
    return result;
  }
  RecordSync(EventKind::kWait, 0, Address(cond), 0, pc);
  BeforeBlockingSync(EventKind::kLock, Address(mutex), pc);
  REAL(pthread_mutex_lock)(mutex);
  AfterBlockingSync();
  RecordSync(EventKind::kLock, 0, Address(mutex), 0, pc);
  return 0;
}

}  // namespace

PECAN_EXPORT int pthread_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  if (!ThreadRecordsEventsBefore(EventKind::kWait, Address(cond)))
    return REAL(pthread_cond_wait)(cond, mutex);
  const uint64_t pc = PECAN_CALLER_PC();
  RecordSyncObjectUse(cond, pc);
  if (ReplaysWait())
    return ReplayedWait(cond, mutex, pc, [&] { return REAL(pthread_cond_wait)(cond, mutex); });
  BeforeWait(mutex, pc);
  int result;
  {
    // Bit 0 of glibc's __wrefs: a condition shared with other processes, which may notify it.
    BlockedInCall blocked(pecan::BlockedOn::kCondition, Address(cond), pc,
                          (cond->__data.__wrefs & 1) == 0);
    result = REAL(pthread_cond_wait)(cond, mutex);
  }
  AfterWait(cond, mutex, result, pc);
  return result;
}

PECAN_EXPORT int pthread_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                        const timespec* abstime) {
  if (!ThreadRecordsEventsBefore(EventKind::kWait, Address(cond)))
    return REAL(pthread_cond_timedwait)(cond, mutex, abstime);
  const uint64_t pc = PECAN_CALLER_PC();
  RecordSyncObjectUse(cond, pc);
  if (ReplaysWait()) {
    return ReplayedWait(cond, mutex, pc,
                        [&] { return REAL(pthread_cond_timedwait)(cond, mutex, abstime); });
  }
  BeforeWait(mutex, pc);
  int result = REAL(pthread_cond_timedwait)(cond, mutex, abstime);
  AfterWait(cond, mutex, result, pc);
  return result;
}

// What std::condition_variable::wait_for/wait_until use with glibc >= 2.30.
PECAN_EXPORT int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                        clockid_t clock, const timespec* abstime) {
  if (!ThreadRecordsEventsBefore(EventKind::kWait, Address(cond)))
    return REAL(pthread_cond_clockwait)(cond, mutex, clock, abstime);
  const uint64_t pc = PECAN_CALLER_PC();
  RecordSyncObjectUse(cond, pc);
  if (ReplaysWait()) {
    return ReplayedWait(cond, mutex, pc,
                        [&] { return REAL(pthread_cond_clockwait)(cond, mutex, clock, abstime); });
  }
  BeforeWait(mutex, pc);
  int result = REAL(pthread_cond_clockwait)(cond, mutex, clock, abstime);
  AfterWait(cond, mutex, result, pc);
  return result;
}

PECAN_EXPORT int pthread_cond_signal(pthread_cond_t* cond) {
  if (ThreadRecordsEvents()) {
    const uint64_t pc = PECAN_CALLER_PC();
    RecordSyncObjectUse(cond, pc);
    RecordSync(EventKind::kNotify, 0, Address(cond), 0, pc);
  }
  return REAL(pthread_cond_signal)(cond);
}

PECAN_EXPORT int pthread_cond_broadcast(pthread_cond_t* cond) {
  if (ThreadRecordsEvents()) {
    const uint64_t pc = PECAN_CALLER_PC();
    RecordSyncObjectUse(cond, pc);
    RecordSync(EventKind::kNotifyAll, 0, Address(cond), 0, pc);
  }
  return REAL(pthread_cond_broadcast)(cond);
}
