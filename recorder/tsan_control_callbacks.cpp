// The remaining compiler and annotation callbacks: __tsan_init, function entry/exit, ignore
// regions, the custom-mutex and acquire/release annotations (LLVM 15+'s mem* intrinsics are in
// interpose_memory_functions.cpp).
#include <cstddef>

#include "recorder/export.h"
#include "recorder/plt_redirect.h"
#include "recorder/runtime.h"
#include "recorder/thread_lifecycle.h"
#include "recorder/thread_state.h"
#include "trace_format/event_kind.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

// Flag bits of the __tsan_mutex_* annotations (sanitizer/tsan_interface.h).
constexpr unsigned kMutexReadLock = 1u << 3;
constexpr unsigned kMutexTryLock = 1u << 4;
constexpr unsigned kMutexTryLockFailed = 1u << 5;
constexpr unsigned kMutexRecursiveLock = 1u << 6;
constexpr unsigned kMutexRecursiveUnlock = 1u << 7;

inline uint64_t Address(const volatile void* addr) {
  return reinterpret_cast<uintptr_t>(addr);
}

}  // namespace

// Called from a constructor of every instrumented object, possibly many times, very early.
PECAN_EXPORT void __tsan_init() {
  InitializeRuntime();
  if (RedirectingModules()) RedirectInstrumentedModules();  // a dlopen()ed instrumented module
}

PECAN_EXPORT void __tsan_flush_memory() {}

// FUNC_ENTRY's site is inside the entered function (this call's return address).
// The depth keeps FUNC events balanced: an exit from a function entered before the thread
// was recorded is dropped, and frames a thread leaves without returning (pthread_exit) get
// their exits at THREAD_END.
PECAN_EXPORT void __tsan_func_entry(void* caller_pc) {
  (void)caller_pc;
  ThreadState& t = tls_thread;
  if (!(t.gates & kGateFuncs)) return;
  ++t.func_depth;
  EndEpoch(t);
  if (t.gates & kGateSections) SectionsOnFunction(t, true, PECAN_CALLER_PC());
  BeforeEvent(t, EventKind::kFuncEntry, PECAN_CALLER_PC(), 0, 0);
  EmitPlain(t, PackPlainWord(EventKind::kFuncEntry, 0, 0, 0), PECAN_CALLER_PC());
}

PECAN_EXPORT void __tsan_func_exit() {
  ThreadState& t = tls_thread;
  if (!(t.gates & kGateFuncs) || t.func_depth == 0) return;
  --t.func_depth;
  EndEpoch(t);
  if (t.gates & kGateSections) SectionsOnFunction(t, false, PECAN_CALLER_PC());
  BeforeEvent(t, EventKind::kFuncExit, PECAN_CALLER_PC(), 0, 0);
  EmitPlain(t, PackPlainWord(EventKind::kFuncExit, 0, 0, 0), PECAN_CALLER_PC());
}

// Accesses between these are not recorded; synchronization still is.
PECAN_EXPORT void __tsan_ignore_thread_begin() {
  IgnoreAccessesBegin();
}
PECAN_EXPORT void __tsan_ignore_thread_end() {
  IgnoreAccessesEnd();
}

// Custom-mutex annotations (abseil, folly, ... under ThreadSanitizer).
PECAN_EXPORT void __tsan_mutex_create(void*, unsigned) {}
PECAN_EXPORT void __tsan_mutex_destroy(void*, unsigned) {}
PECAN_EXPORT void __tsan_mutex_pre_lock(void*, unsigned) {}

PECAN_EXPORT void __tsan_mutex_post_lock(void* addr, unsigned flags, int recursion) {
  (void)recursion;
  if (flags & (kMutexTryLockFailed | kMutexRecursiveLock)) return;
  RecordSync((flags & kMutexReadLock) ? EventKind::kReadLock : EventKind::kLock,
             (flags & kMutexTryLock) ? pecan::kTryLockFlag : 0, Address(addr), 0,
             PECAN_CALLER_PC());
}

PECAN_EXPORT int __tsan_mutex_pre_unlock(void* addr, unsigned flags) {
  if (!(flags & kMutexRecursiveUnlock)) {
    RecordSync((flags & kMutexReadLock) ? EventKind::kReadUnlock : EventKind::kUnlock, 0,
               Address(addr), 0, PECAN_CALLER_PC());
  }
  return 0;
}

PECAN_EXPORT void __tsan_mutex_post_unlock(void*, unsigned) {}
PECAN_EXPORT void __tsan_mutex_pre_signal(void*, unsigned) {}
PECAN_EXPORT void __tsan_mutex_post_signal(void*, unsigned) {}
PECAN_EXPORT void __tsan_mutex_pre_divert(void*, unsigned) {}
PECAN_EXPORT void __tsan_mutex_post_divert(void*, unsigned) {}

// A happens-before edge from __tsan_release(a) to a later __tsan_acquire(a).
PECAN_EXPORT void __tsan_release(void* addr) {
  RecordSync(EventKind::kHbRelease, 0, Address(addr), 0, PECAN_CALLER_PC());
}

PECAN_EXPORT void __tsan_acquire(void* addr) {
  RecordSync(EventKind::kHbAcquire, 0, Address(addr), 0, PECAN_CALLER_PC());
}

// Valgrind-style dynamic annotations, used by some code bases under ThreadSanitizer.
PECAN_EXPORT void AnnotateHappensBefore(const char*, int, const volatile void* addr) {
  RecordSync(EventKind::kHbRelease, 0, Address(addr), 0, PECAN_CALLER_PC());
}

PECAN_EXPORT void AnnotateHappensAfter(const char*, int, const volatile void* addr) {
  RecordSync(EventKind::kHbAcquire, 0, Address(addr), 0, PECAN_CALLER_PC());
}

PECAN_EXPORT void AnnotateIgnoreReadsBegin(const char*, int) {
  IgnoreAccessesBegin();
}
PECAN_EXPORT void AnnotateIgnoreReadsEnd(const char*, int) {
  IgnoreAccessesEnd();
}
PECAN_EXPORT void AnnotateIgnoreWritesBegin(const char*, int) {
  IgnoreAccessesBegin();
}
PECAN_EXPORT void AnnotateIgnoreWritesEnd(const char*, int) {
  IgnoreAccessesEnd();
}
