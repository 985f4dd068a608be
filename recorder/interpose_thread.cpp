// pthread_create/join/detach: FORK before the child's first event, JOIN after the child ended.
// The child waits until its parent has recorded the FORK, so FORK always precedes THREAD_BEGIN
// and a failed pthread_create leaves no trace.
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include "recorder/blocked_call.h"
#include "recorder/export.h"
#include "recorder/futex.h"
#include "recorder/real_functions.h"
#include "recorder/runtime.h"
#include "recorder/stack_sharing.h"
#include "recorder/thread_handle_map.h"
#include "recorder/thread_lifecycle.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

struct ThreadStart {
  void* (*routine)(void*) = nullptr;
  void* arg = nullptr;
  uint32_t serial = 0;
  uint32_t replay_id = 0;  // the child's identity in the replayed schedule (replay mode)
  bool detached = false;
  std::atomic<uint32_t> forked{0};  // set (and futex-woken) once the parent recorded FORK
};

void* RecordedThreadStart(void* raw) {
  auto* start = static_cast<ThreadStart*>(raw);
  void* (*routine)(void*) = start->routine;
  void* arg = start->arg;
  const bool attached = AttachCurrentThread(start->serial, reinterpret_cast<uintptr_t>(routine));
  while (start->forked.load(std::memory_order_acquire) == 0)
    FutexWait(&start->forked, 0, 1'000'000);
  const uint32_t replay_id = start->replay_id;
  {
    RuntimeScope scope;
    delete start;
  }
  if (attached && ReplayModeActive()) ReplayAttachThread(replay_id);
  if (attached) BeginRecordingCurrentThread();
  return routine(arg);
}

// Heal mode: the child is monitored from its start, recorded never.
struct MonitoredStart {
  void* (*routine)(void*) = nullptr;
  void* arg = nullptr;
};

void* MonitoredThreadStart(void* raw) {
  auto* start = static_cast<MonitoredStart*>(raw);
  void* (*routine)(void*) = start->routine;
  void* arg = start->arg;
  {
    RuntimeScope scope;
    delete start;
  }
  BeginMonitoringCurrentThread(reinterpret_cast<uintptr_t>(routine));
  return routine(arg);
}

int CreateMonitoredThread(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*),
                          void* arg) {
  BeforeSectionEvent(tls_thread, EventKind::kFork, 0);
  RuntimeScope scope;
  auto* start = new MonitoredStart{routine, arg};
  const int error = REAL(pthread_create)(thread, attr, MonitoredThreadStart, start);
  if (error != 0) delete start;
  return error;
}

bool CreatesDetached(const pthread_attr_t* attr) {
  int state = PTHREAD_CREATE_JOINABLE;
  return attr != nullptr && pthread_attr_getdetachstate(attr, &state) == 0 &&
         state == PTHREAD_CREATE_DETACHED;
}

// Joining (or detaching) an ended thread frees its thread control block and TLS inside libc:
// those FREEs are libc's, not the program's, and would sit between the replay's turn for JOIN
// and the JOIN itself. The real call records nothing.
template <typename Call>
int QuietJoin(Call call) {
  RuntimeScope quiet;
  return call();
}

// JOIN for a successfully joined thread whose serial was looked up before the join.
void RecordJoin(pthread_t thread, std::optional<uint32_t> serial, uint64_t pc) {
  if (!serial) return;
  ForgetThreadHandle(thread, *serial);
  RecordSync(EventKind::kJoin, 0, *serial, 0, pc);
}

}  // namespace

PECAN_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                                void* (*routine)(void*), void* arg) {
  InitializeRuntime();
  ThreadState& t = tls_thread;
  if (!(t.gates & kGateEvents)) {
    if (t.gates & kGateSections) return CreateMonitoredThread(thread, attr, routine, arg);
    return REAL(pthread_create)(thread, attr, routine, arg);
  }
  const uint64_t pc = PECAN_CALLER_PC();
  // An argument in the creator's own stack or TLS (`int x; pthread_create(.., &x)`): from now
  // on the creator records its accesses to the frames at and above this call, which the child
  // may reach (stack_sharing.h). Frames it calls later lie below and stay filtered.
  if (reinterpret_cast<uint64_t>(arg) - t.stack_lo < t.stack_bytes)
    ShareStackFrom(t, reinterpret_cast<uint64_t>(__builtin_frame_address(0)));
  const bool replay = (t.gates & kGateReplay) != 0;
  ThreadStart* start;
  int error;
  {
    RuntimeScope scope;
    start = new ThreadStart;
    start->routine = routine;
    start->arg = arg;
    start->serial = NextThreadSerial();
    start->detached = CreatesDetached(attr);
    if (replay) start->replay_id = ReplayReserveChild(start->serial);
    error = REAL(pthread_create)(thread, attr, RecordedThreadStart, start);
    if (error != 0) {
      if (replay) ReplayCancelChild(start->replay_id);
      delete start;
    }
  }
  if (error != 0) return error;
  // Registered here, not by the child: the child cannot end (and its handle cannot be reused)
  // before `forked` is set below, and the parent may call pthread_join right after we return.
  RememberThreadHandle(*thread, start->serial, start->detached);
  EmitStamped(t, EventKind::kFork, 0, start->serial, 0, pc);
  if (replay) ReplayChildForked(start->replay_id);
  start->forked.store(1, std::memory_order_release);
  FutexWakeAll(&start->forked);  // harmless if the child already went on (and freed `start`)
  return 0;
}

PECAN_EXPORT int pthread_join(pthread_t thread, void** result) {
  if (!ThreadRecordsEventsBefore(EventKind::kJoin, 0)) return REAL(pthread_join)(thread, result);
  const uint64_t pc = PECAN_CALLER_PC();
  std::optional<uint32_t> serial = FindThreadHandle(thread);
  BeforeBlockingSync(EventKind::kJoin, serial.value_or(0), pc);
  int error;
  {
    BlockedInCall blocked(pecan::BlockedOn::kJoin, serial ? uint64_t{*serial} : UINT64_MAX, pc);
    error = QuietJoin([&] { return REAL(pthread_join)(thread, result); });
  }
  AfterBlockingSync();
  if (error == 0) RecordJoin(thread, serial, pc);
  return error;
}

PECAN_EXPORT int pthread_tryjoin_np(pthread_t thread, void** result) {
  if (!ThreadRecordsEvents()) return REAL(pthread_tryjoin_np)(thread, result);
  const uint64_t pc = PECAN_CALLER_PC();
  std::optional<uint32_t> serial = FindThreadHandle(thread);
  int error = QuietJoin([&] { return REAL(pthread_tryjoin_np)(thread, result); });
  if (error == 0) RecordJoin(thread, serial, pc);
  return error;
}

PECAN_EXPORT int pthread_timedjoin_np(pthread_t thread, void** result, const timespec* abstime) {
  if (!ThreadRecordsEventsBefore(EventKind::kJoin, 0))
    return REAL(pthread_timedjoin_np)(thread, result, abstime);
  const uint64_t pc = PECAN_CALLER_PC();
  std::optional<uint32_t> serial = FindThreadHandle(thread);
  BeforeBlockingSync(EventKind::kJoin, serial.value_or(0), pc);
  int error = QuietJoin([&] { return REAL(pthread_timedjoin_np)(thread, result, abstime); });
  AfterBlockingSync();
  if (error == 0) RecordJoin(thread, serial, pc);
  return error;
}

PECAN_EXPORT int pthread_clockjoin_np(pthread_t thread, void** result, clockid_t clock,
                                      const timespec* abstime) {
  if (!ThreadRecordsEventsBefore(EventKind::kJoin, 0))
    return REAL(pthread_clockjoin_np)(thread, result, clock, abstime);
  const uint64_t pc = PECAN_CALLER_PC();
  std::optional<uint32_t> serial = FindThreadHandle(thread);
  BeforeBlockingSync(EventKind::kJoin, serial.value_or(0), pc);
  int error = QuietJoin([&] { return REAL(pthread_clockjoin_np)(thread, result, clock, abstime); });
  AfterBlockingSync();
  if (error == 0) RecordJoin(thread, serial, pc);
  return error;
}

// The initial thread leaving with pthread_exit lets the process live until its last thread
// ends; the writer notices when only it is left and ends the process as glibc would have.
PECAN_EXPORT void pthread_exit(void* value) {
  if (gettid() == getpid()) NoteInitialThreadExited();
  REAL(pthread_exit)(value);
  __builtin_unreachable();
}

PECAN_EXPORT int pthread_detach(pthread_t thread) {
  int error = QuietJoin([&] { return REAL(pthread_detach)(thread); });
  if (error == 0 && ThreadRecordsEvents()) MarkThreadHandleDetached(thread);
  return error;
}
