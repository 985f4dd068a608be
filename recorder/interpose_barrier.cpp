// Barrier interposers: BARRIER_ARRIVE before blocking, BARRIER_DEPART after release, both with
// the participant count, which pthread_barrier_init tells us (kept in a small table).
#include <pthread.h>

#include <unordered_map>

#include "recorder/blocked_call.h"
#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/spin_lock.h"
#include "recorder/sync_object_access.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

inline uint64_t Address(const volatile void* addr) {
  return reinterpret_cast<uintptr_t>(addr);
}

SpinLock barriers_lock;
std::unordered_map<uint64_t, unsigned>* barrier_counts = nullptr;  // never destroyed

void RememberCount(uint64_t barrier, unsigned count) {
  RuntimeScope scope;
  SpinLockGuard guard(barriers_lock);
  if (barrier_counts == nullptr) barrier_counts = new std::unordered_map<uint64_t, unsigned>();
  (*barrier_counts)[barrier] = count;
}

void ForgetCount(uint64_t barrier) {
  RuntimeScope scope;
  SpinLockGuard guard(barriers_lock);
  if (barrier_counts != nullptr) barrier_counts->erase(barrier);
}

// 0 when the barrier was initialized before the runtime could see it.
unsigned CountOf(uint64_t barrier) {
  SpinLockGuard guard(barriers_lock);
  if (barrier_counts == nullptr) return 0;
  auto found = barrier_counts->find(barrier);
  return found == barrier_counts->end() ? 0 : found->second;
}

}  // namespace

PECAN_EXPORT int pthread_barrier_init(pthread_barrier_t* barrier, const pthread_barrierattr_t* attr,
                                      unsigned count) {
  RecordSyncObjectLifetime(barrier, sizeof(*barrier), PECAN_CALLER_PC());
  int result = REAL(pthread_barrier_init)(barrier, attr, count);
  if (result == 0) RememberCount(Address(barrier), count);
  return result;
}

PECAN_EXPORT int pthread_barrier_destroy(pthread_barrier_t* barrier) {
  RecordSyncObjectLifetime(barrier, sizeof(*barrier), PECAN_CALLER_PC());
  ForgetCount(Address(barrier));
  return REAL(pthread_barrier_destroy)(barrier);
}

PECAN_EXPORT int pthread_barrier_wait(pthread_barrier_t* barrier) {
  if (!ThreadRecordsEventsBefore(EventKind::kBarrierArrive, Address(barrier)))
    return REAL(pthread_barrier_wait)(barrier);
  const uint64_t pc = PECAN_CALLER_PC();
  RecordSyncObjectUse(barrier, pc);
  const unsigned count = CountOf(Address(barrier));
  RecordSync(EventKind::kBarrierArrive, 0, Address(barrier), count, pc);
  BeforeBlockingOnOthers(EventKind::kBarrierDepart, Address(barrier), pc);
  int result;
  {
    BlockedInCall blocked(pecan::BlockedOn::kBarrier, Address(barrier), pc);
    result = REAL(pthread_barrier_wait)(barrier);
  }
  AfterBlockingOnOthers();
  RecordSync(EventKind::kBarrierDepart, 0, Address(barrier), count, pc);
  return result;
}
