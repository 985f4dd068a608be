// One-time initialization: pthread_once (std::call_once) and C++ function-local statics.
// The initializer's effects must happen before every caller that finds the work done.
#include <pthread.h>

#include "recorder/atomic_stripes.h"
#include "recorder/blocked_call.h"
#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

inline uint64_t Address(const volatile void* addr) {
  return reinterpret_cast<uintptr_t>(addr);
}

// pthread_once's init routine takes no argument: the caller's routine and control travel in
// thread-local variables (saved around nested pthread_once calls made by an init routine).
struct OnceCall {
  void (*routine)(void) = nullptr;
  pthread_once_t* control = nullptr;
  uint64_t pc = 0;
};
thread_local OnceCall current_once __attribute__((tls_model("initial-exec")));

void RunOnceRoutine() {
  const OnceCall call = current_once;
  call.routine();
  // HB_RELEASE on the control's address; every caller's HB_ACQUIRE comes after it.
  RecordSync(EventKind::kHbRelease, 0, Address(call.control), 0, call.pc);
}

// Records a one-byte atomic access of a static's guard under its stripe, like the inline
// fast path's __tsan_atomic8_load(guard, acquire) that it pairs with.
template <typename Op>
void WithGuardEvent(int64_t* guard, EventKind kind, int order, uint64_t pc, Op op) {
  ThreadState& t = tls_thread;
  BeforeSectionEvent(t, kind, Address(guard));
  if (!(t.gates & kGateEvents)) {
    op();
    return;
  }
  BeforeEvent(t, kind, pc, Address(guard), 1);
  uint32_t saved;
  if (!BeginStamped(t, saved)) {
    EndStamped(t, saved);
    op();
    return;
  }
  const uint32_t stripe_index = StripeIndexFor(guard);
  SpinLock& stripe = atomic_stripes[stripe_index].lock;
  stripe.lock();
  op();
  CommitStriped(t, kind, uint8_t(order), Address(guard), 1, pc, stripe_index);
  stripe.unlock();
  EndStamped(t, saved);
}

constexpr int kAcquireOrder = 2;
constexpr int kReleaseOrder = 3;

}  // namespace

PECAN_EXPORT int pthread_once(pthread_once_t* control, void (*routine)(void)) {
  if (!ThreadRecordsEventsBefore(EventKind::kHbAcquire, Address(control)))
    return REAL(pthread_once)(control, routine);
  const uint64_t pc = PECAN_CALLER_PC();
  const OnceCall outer = current_once;
  current_once = OnceCall{routine, control, pc};
  int result = REAL(pthread_once)(control, RunOnceRoutine);
  current_once = outer;
  if (result == 0) RecordSync(EventKind::kHbAcquire, 0, Address(control), 0, pc);
  return result;
}

// Returns 1 when the caller must run the initializer, 0 when it is already done. The compiler's
// inline check of the guard byte is an acquire load (__tsan_atomic8_load); the slow path here
// is recorded the same way, and the release as the store that publishes the object.
PECAN_EXPORT int __cxa_guard_acquire(int64_t* guard) {
  if (!ThreadRecordsEventsBefore(EventKind::kHbAcquire, Address(guard)))
    return REAL(__cxa_guard_acquire)(guard);
  const uint64_t pc = PECAN_CALLER_PC();
  // Blocks while another thread runs the initializer, which needs the turn.
  BeforeBlockingOnOthers(EventKind::kHbAcquire, Address(guard), pc);
  int must_initialize;
  {
    BlockedInCall blocked(pecan::BlockedOn::kStaticInit, Address(guard), pc);
    must_initialize = REAL(__cxa_guard_acquire)(guard);
  }
  AfterBlockingOnOthers();
  if (must_initialize == 0) WithGuardEvent(guard, EventKind::kAtomicLoad, kAcquireOrder, pc, [] {});
  return must_initialize;
}

PECAN_EXPORT void __cxa_guard_release(int64_t* guard) {
  const uint64_t pc = PECAN_CALLER_PC();
  WithGuardEvent(guard, EventKind::kAtomicStore, kReleaseOrder, pc, [guard] {
    REAL(__cxa_guard_release)(guard);
  });
}
