// Thread attach/detach for the recorder. The exit hook is a pthread key destructor that defers
// itself one round, so it runs after C++ thread_local destructors and most other key destructors.
#include "recorder/thread_lifecycle.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>

extern "C" void* __libc_stack_end;  // glibc (ld.so): where argc lay at process start

#include "recorder/replay_bridge.h"
#include "recorder/runtime.h"
#include "recorder/stack_sharing.h"
#include "recorder/thread_handle_map.h"
#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

std::atomic<uint32_t> next_serial{0};
pthread_key_t exit_key;
bool exit_key_created = false;

// Values of the exit key: first round defers, second round ends the thread.
char first_round_marker;
char second_round_marker;

constexpr size_t kAltStackBytes = 64 * 1024;  // room for the fatal-signal handler
thread_local void* alt_stack __attribute__((tls_model("initial-exec"))) = nullptr;

// The main thread's stack as glibc reports it ends at the end of the page that holds
// __libc_stack_end, the address of argc at process start. Above argc lie argv, envp, the
// auxiliary vector and their strings: the process's arguments, not frames. How much of them
// shares that page moves with address randomization and the size of the environment, so a
// stack filter that ended there would record the program reading its arguments in one run and
// not in the next. The main thread's stack ends at argc instead.
// (A thread that forked is its child's only thread, with its own stack: argc is not in it.)
uint64_t StackEndBelowArguments(uint64_t low, uint64_t reported_end) {
  const auto argc_at = reinterpret_cast<uint64_t>(__libc_stack_end);
  return argc_at > low && argc_at < reported_end ? argc_at : reported_end;
}

void ComputeStack(ThreadState& t) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* low = nullptr;
  size_t bytes = 0;
  if (pthread_attr_getstack(&attr, &low, &bytes) == 0) {
    t.stack_lo = reinterpret_cast<uint64_t>(low);
    t.stack_bytes = StackEndBelowArguments(t.stack_lo, t.stack_lo + bytes) - t.stack_lo;
  }
  pthread_attr_destroy(&attr);
}

// A fatal signal caused by stack overflow can only be handled on an alternate stack.
void InstallAltStack() {
  stack_t current;
  if (sigaltstack(nullptr, &current) != 0 || !(current.ss_flags & SS_DISABLE)) return;
  void* memory =
      mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;
  stack_t stack{};
  stack.ss_sp = memory;
  stack.ss_size = kAltStackBytes;
  if (sigaltstack(&stack, nullptr) != 0) {
    munmap(memory, kAltStackBytes);
    return;
  }
  alt_stack = memory;
}

void RemoveAltStack() {
  if (alt_stack == nullptr) return;
  stack_t disable{};
  disable.ss_flags = SS_DISABLE;
  if (sigaltstack(&disable, nullptr) == 0) munmap(alt_stack, kAltStackBytes);
  alt_stack = nullptr;
}

void OnThreadExitKey(void* value) {
  if (value == &first_round_marker) {
    pthread_setspecific(exit_key, &second_round_marker);
    return;
  }
  EndCurrentThread();
}

uint32_t OpenGatesFor(const ThreadState& t) {
  uint32_t gates = kGateEvents;
  if (t.ignore_depth == 0) gates |= kGateAccesses;
  if (Config().func_events) gates |= kGateFuncs;
  if (ReplayModeActive()) gates |= kGateReplay;
  if (SectionsActive()) gates |= kGateSections;
  return gates;
}

// The site of a thread's own events (THREAD_BEGIN/THREAD_END, its stack's FREE, frames closed at
// its end): its start routine. Sites are return addresses, named by the instruction before them,
// so the routine's first instruction is stored one byte on (else the thread's start is named by
// whatever function precedes the routine, e.g. frame_dummy).
uint64_t EntrySite(uint64_t routine) {
  return routine == 0 ? 0 : routine + 1;
}

}  // namespace

uint32_t NextThreadSerial() {
  return next_serial.fetch_add(1, std::memory_order_relaxed);
}

void ResetThreadSerials() {
  next_serial.store(0, std::memory_order_relaxed);
}

void InitThreadLifecycle() {
  if (!exit_key_created) exit_key_created = pthread_key_create(&exit_key, OnThreadExitKey) == 0;
}

bool AttachCurrentThread(uint32_t serial, uint64_t entry_pc) {
  RuntimeScope scope;
  ThreadState& t = tls_thread;
  ThreadRing* ring = CreateRing(serial);
  if (ring == nullptr) return false;
  t.ring = ring;
  t.slots = ring->slots;
  t.mask = ring->mask;
  t.tail = 0;
  t.tail_limit = kRingSlots;
  t.serial = serial;
  t.func_depth = 0;
  t.entry_pc = EntrySite(entry_pc);
  t.tid = gettid();
  t.ignore_depth = 0;
  t.recording_over = false;
  ComputeStack(t);
  t.stack_filter_bytes.store(Config().stack_accesses ? 0 : t.stack_bytes,
                             std::memory_order_relaxed);
  // Other threads' accesses share the stack (stack_sharing.h) while the exit hook can withdraw it.
  if (exit_key_created && !Config().stack_accesses) RegisterStack(t);
  // Without its table (out of memory) the thread records every repeat: slower, still right.
  t.repeats = Config().drop_repeats ? CreateRepeatTable() : nullptr;
  t.epoch_tag = kFirstEpochTag;
  t.repeats_left_out = 0;
  t.open_gates = 0;
  t.watch_blocking = Config().mode == RuntimeMode::kRecord && Config().deadlock_wait_ms > 0;
  t.blocking_calls = 0;
  ring->blocking.tid = t.tid;
  InstallAltStack();
  if (exit_key_created) pthread_setspecific(exit_key, &first_round_marker);
  PublishRing(ring);
  return true;
}

void BeginRecordingCurrentThread() {
  ThreadState& t = tls_thread;
  if (t.ring == nullptr) return;
  // The gates are still closed: THREAD_BEGIN asks for its turn here.
  if (ReplayModeActive()) ReplayBeforeEvent(EventKind::kThreadBegin, t.entry_pc, 0, 0);
  EmitStamped(t, EventKind::kThreadBegin, 0, 0, 0, t.entry_pc);
  t.open_gates = OpenGatesFor(t);
  t.gates = t.open_gates;
}

void BeginMonitoringCurrentThread(uint64_t entry_pc) {
  ThreadState& t = tls_thread;
  {
    RuntimeScope scope;
    t.serial = NextThreadSerial();
    t.entry_pc = EntrySite(entry_pc);
    t.tid = gettid();
    ComputeStack(t);
    t.stack_filter_bytes.store(Config().stack_accesses ? 0 : t.stack_bytes,
                               std::memory_order_relaxed);
    if (exit_key_created) pthread_setspecific(exit_key, &first_round_marker);
  }
  t.open_gates = kGateSections | (t.ignore_depth == 0 ? kGateAccesses : 0);
  t.gates = t.open_gates;
}

void EndCurrentThread() {
  ThreadState& t = tls_thread;
  if (t.ring == nullptr && (t.open_gates & kGateSections)) {  // monitored, not recorded
    SectionsOnThreadEnd(t);
    t.gates = 0;
    t.open_gates = 0;
    return;
  }
  UnregisterStack(t);  // before the thread's TLS, which holds `t`, can go away
  if (t.ring == nullptr || !(t.open_gates & kGateEvents)) return;
  // Frames left without returning (pthread_exit, cancellation) exit here.
  for (; t.func_depth > 0; --t.func_depth) {
    EndEpoch(t);
    BeforeEvent(t, EventKind::kFuncExit, t.entry_pc, 0, 0);
    EmitPlain(t, PackPlainWord(EventKind::kFuncExit, 0, 0, 0), t.entry_pc);
  }
  EmitStamped(t, EventKind::kFree, 0, t.stack_lo, t.stack_bytes, t.entry_pc);
  EmitStamped(t, EventKind::kThreadEnd, 0, 0, 0, t.entry_pc);
  if (t.gates & kGateReplay) ReplayDetachThread();
  if (t.open_gates & kGateSections) SectionsOnThreadEnd(t);
  t.gates = 0;
  t.open_gates = 0;
  DestroyRepeatTable(t.repeats);
  t.repeats = nullptr;
  ThreadRing* ring = t.ring;
  t.ring = nullptr;
  ring->finished.store(true, std::memory_order_release);  // the writer frees it once drained
  ForgetThreadHandleIfDetached(pthread_self(), t.serial);
  RuntimeScope scope;
  RemoveAltStack();
}

void IgnoreAccessesBegin() {
  ThreadState& t = tls_thread;
  if (t.ignore_depth++ == 0) {
    t.open_gates &= ~kGateAccesses;
    t.gates &= ~kGateAccesses;
  }
}

void IgnoreAccessesEnd() {
  ThreadState& t = tls_thread;
  if (t.ignore_depth == 0) return;
  if (--t.ignore_depth == 0 && (t.open_gates & (kGateEvents | kGateSections)) &&
      !t.recording_over) {
    t.open_gates |= kGateAccesses;
    t.gates |= kGateAccesses;
  }
}

}  // namespace pecan::rt
