// Semaphore interposers: SEM_POST before posting, SEM_WAIT after a wait succeeded, so every
// SEM_WAIT follows the SEM_POST that let it through.
#include <semaphore.h>
#include <string.h>

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

// glibc's sem_t (struct new_sem, 64-bit): the counter, then `private`, 0 (FUTEX_SHARED) for a
// semaphore shared between processes (sem_init with pshared, sem_open), which another process
// may post: not a wait the deadlock watch can judge.
bool ProcessPrivate(const sem_t* sem) {
  int futex_private;
  memcpy(&futex_private, reinterpret_cast<const char*>(sem) + sizeof(uint64_t),
         sizeof futex_private);
  return futex_private != 0;
}

}  // namespace

PECAN_EXPORT int sem_post(sem_t* sem) {
  if (ThreadRecordsEvents()) {
    const uint64_t pc = PECAN_CALLER_PC();
    RecordSyncObjectUse(sem, pc);
    RecordSync(EventKind::kSemPost, 0, Address(sem), 0, pc);
  }
  return REAL(sem_post)(sem);
}

// `watched`: the untimed wait, which counts as blocked for the deadlock watch.
#define PECAN_SEM_WAIT(name, blocking, watched, params, args)                                  \
  PECAN_EXPORT int name params {                                                               \
    if (!ThreadRecordsEventsBefore(EventKind::kSemWait, Address(sem))) return REAL(name) args; \
    const uint64_t pc = PECAN_CALLER_PC();                                                     \
    RecordSyncObjectUse(sem, pc);                                                              \
    if (blocking) BeforeBlockingSync(EventKind::kSemWait, Address(sem), pc);                   \
    int result;                                                                                \
    {                                                                                          \
      BlockedInCall blocked(pecan::BlockedOn::kSemaphore, Address(sem), pc,                    \
                            watched&& ProcessPrivate(sem));                                    \
      result = REAL(name) args;                                                                \
    }                                                                                          \
    if (blocking) AfterBlockingSync();                                                         \
    if (result == 0) RecordSync(EventKind::kSemWait, 0, Address(sem), 0, pc);                  \
    return result;                                                                             \
  }

PECAN_SEM_WAIT(sem_wait, true, true, (sem_t * sem), (sem))
PECAN_SEM_WAIT(sem_trywait, false, false, (sem_t * sem), (sem))
PECAN_SEM_WAIT(sem_timedwait, true, false, (sem_t * sem, const timespec* abstime), (sem, abstime))
PECAN_SEM_WAIT(sem_clockwait, true, false, (sem_t * sem, clockid_t clock, const timespec* abstime),
               (sem, clock, abstime))
