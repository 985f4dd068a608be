// Per-thread recorder state (initial-exec TLS) and the one choke point every event of a thread
// passes: EmitPlain / EmitStamped append slots to the thread's own ring, without locks or malloc.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "recorder/event_slot.h"
#include "recorder/repeat_filter.h"
#include "recorder/replay_bridge.h"
#include "recorder/section_hooks.h"
#include "recorder/stack_sharing.h"
#include "recorder/thread_ring.h"

namespace pecan::rt {

// Gate bits: an event is recorded only when its gate is open. All gates are closed in off mode,
// in threads the recorder does not follow, inside the runtime's own code, while the thread is
// in the middle of appending (so a signal handler cannot interleave a half-written slot), and
// after the thread's THREAD_END.
inline constexpr uint32_t kGateAccesses = 1;  // plain READ/WRITE (closed by ignore annotations)
inline constexpr uint32_t kGateEvents = 2;    // synchronization, atomics, allocation, ...
inline constexpr uint32_t kGateFuncs = 4;     // FUNC_ENTRY/FUNC_EXIT (PECAN_FUNC_EVENTS)
// Replay mode: every event asks the scheduler for its turn (replay_bridge.h) before it takes
// effect. Closed with the others, so the runtime's own work is never scheduled.
inline constexpr uint32_t kGateReplay = 8;
// A section monitor (section_hooks.h) sees the thread's accesses and events before they take
// effect. Closed with the others, so the runtime's own work is never monitored.
inline constexpr uint32_t kGateSections = 16;

struct ThreadState {
  uint32_t gates = 0;       // what is recorded right now
  uint32_t open_gates = 0;  // what this thread records when not suppressed (ignore/runtime scope)
  uint64_t stack_lo = 0;  // accesses in [stack_lo, stack_lo + stack_filter_bytes) dropped
  // 0 when PECAN_STACK_ACCESSES=1; shrinks (also from other threads) as parts of the stack
  // become shared (stack_sharing.h).
  std::atomic<uint64_t> stack_filter_bytes{0};
  Slot* slots = nullptr;
  uint64_t mask = 0;
  uint64_t tail = 0;        // next slot to write (private copy of ring->tail)
  uint64_t tail_limit = 0;  // tail may grow up to here before the ring's head must be re-read
  ThreadRing* ring = nullptr;
  RepeatEntry* repeats =
      nullptr;             // the repeat filter (repeat_filter.h); nullptr records every access
  uint64_t epoch_tag = 0;  // the current epoch in the top 16 bits
  uint32_t repeats_left_out =
      0;                     // since the thread's last recorded event (at most kMaxRepeatsBefore)
  uint64_t stack_bytes = 0;  // size of the thread's stack, for the FREE at THREAD_END
  uint64_t entry_pc = 0;     // site of THREAD_BEGIN/THREAD_END: the start routine + 1
  uint32_t serial = 0;
  uint32_t ignore_depth = 0;
  uint32_t func_depth = 0;  // recorded FUNC_ENTRYs not yet exited
  pid_t tid = 0;
  // Set when one of the thread's events came after the end of the recording and went
  // unrecorded: its accesses stop too (StopRecordingAccesses).
  bool recording_over = false;
  // The deadlock watch is on (PECAN_DEADLOCK_WAIT_MS > 0, record mode): blocking calls and lock
  // events are published in the ring's BlockingState (blocked_call.h).
  bool watch_blocking = false;
  uint64_t blocking_calls = 0;  // untimed blocking calls entered so far
  int32_t section_slot = -1;    // the thread's slot in the noise monitor's table (-1: none)
  int32_t stack_slot = -1;      // the thread's entry among the registered stacks (-1: none)
  // Part of another thread's stack this thread found shared already, valid while
  // stack_generation is known_shared_generation: its accesses there need no lookup.
  uint64_t known_shared_lo = 0;
  uint64_t known_shared_bytes = 0;
  uint32_t known_shared_generation = 0;
};

// constinit: no TLS wrapper call on each access (the state is zero-initialized).
extern thread_local constinit ThreadState tls_thread __attribute__((tls_model("initial-exec")));

// Stops the writer from waiting forever: once set, a full ring drops events instead of waiting.
extern std::atomic<bool> recording_closed;
// Events recorded before the end that could not be written (a stamp given up at a crash).
extern std::atomic<uint64_t> dropped_events;

// Waits until `slots` more slots fit into the thread's ring. False when recording has closed:
// the event is dropped, and the thread's accesses stop with it (StopRecordingAccesses).
bool WaitForRingSpace(ThreadState& t, uint64_t slots);

// The gates an append restores: those it saved, less any StopRecordingAccesses closed meanwhile.
inline uint32_t GatesAfterAppend(const ThreadState& t, uint32_t saved_gates) {
  return t.recording_over ? saved_gates & t.open_gates : saved_gates;
}

inline void CompilerBarrier() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

// The pc as a slot stores it: with the count of repeats left out since the thread's previous
// event, which this event now carries (repeat_filter.h).
inline uint64_t SlotPc(ThreadState& t, uint64_t pc) {
  const uint64_t slot_pc = (pc & kLow48) | (uint64_t{t.repeats_left_out} << kRepeatsShift);
  t.repeats_left_out = 0;
  return slot_pc;
}

// Appends one plain event. The gates are closed while the slot is written, so an instrumented
// signal handler that interrupts us records nothing instead of corrupting the ring.
inline void EmitPlain(ThreadState& t, uint64_t word, uint64_t pc) {
  const uint32_t saved = t.gates;
  t.gates = 0;
  CompilerBarrier();
  if (__builtin_expect(t.tail + 1 > t.tail_limit, 0) && !WaitForRingSpace(t, 1)) {
    CompilerBarrier();
    t.gates = GatesAfterAppend(t, saved);
    return;
  }
  Slot& slot = t.slots[t.tail & t.mask];
  slot.word = word;
  slot.pc = SlotPc(t, pc);
  t.ring->tail.store(++t.tail, std::memory_order_release);
  CompilerBarrier();
  t.gates = saved;
}

// In replay mode: waits until the schedule lets the calling thread execute this event (which
// has not taken effect yet). Call it where the event's gate was found open.
inline void BeforeEvent(const ThreadState& t, EventKind kind, uint64_t pc, uint64_t target,
                        uint64_t size) {
  if (__builtin_expect(t.gates & kGateReplay, 0)) ReplayBeforeEvent(kind, pc, target, size);
}

// The section monitors' hook for a non-access event (section_hooks.h). Call it where the
// event's gate was found open, before the event takes effect.
inline void BeforeSectionEvent(ThreadState& t, EventKind kind, uint64_t target) {
  if (__builtin_expect(t.gates & kGateSections, 0)) SectionsOnEvent(t, kind, target);
}

// A recorded access of `t` that may lie in another thread's stack shares that stack from there
// on (stack_sharing.h). One load for nearly every address.
inline void NoteIfForeignStack(ThreadState& t, uint64_t addr) {
  if (__builtin_expect(MayBeThreadStack(addr), 0) && addr - t.stack_lo >= t.stack_bytes &&
      !(addr - t.known_shared_lo < t.known_shared_bytes &&
        t.known_shared_generation == stack_generation.load(std::memory_order_relaxed)))
    NoteForeignStackAccess(t, addr);
}

// The parts of RecordAccess kept out of the hot path: replay mode (the scheduler decides
// first), a section monitor, accesses wider than kMaxInlineSize, and a full ring.
void RecordAccessSlow(EventKind kind, uint64_t addr, uint64_t size, uint64_t pc);
void EmitPlainSlow(ThreadState& t, uint64_t word, uint64_t pc);

// Plain memory access of `size` bytes (size > 0): the hot path of every instrumented load and
// store, inlined into each callback — a few loads and compares, then either nothing (gated,
// the thread's own stack, a repeat) or one 16-byte slot.
__attribute__((always_inline)) inline void RecordAccess(EventKind kind, uint64_t addr,
                                                        uint64_t size, uint64_t pc) {
  ThreadState& t = tls_thread;
  const uint32_t gates = t.gates;
  if (__builtin_expect((gates & (kGateAccesses | kGateReplay | kGateSections)) != kGateAccesses,
                       0)) {
    if (gates & kGateAccesses) RecordAccessSlow(kind, addr, size, pc);
    return;
  }
  if (addr - t.stack_lo < t.stack_filter_bytes.load(std::memory_order_relaxed)) return;
  if (__builtin_expect(size > kMaxInlineSize, 0)) {
    RecordAccessSlow(kind, addr, size, pc);
    return;
  }
  const uint64_t word = PackPlainWord(kind, 0, size, addr);
  if (t.repeats != nullptr && t.repeats_left_out < kMaxRepeatsBefore &&
      IsRepeat(t.repeats, t.epoch_tag, word, pc)) {
    ++t.repeats_left_out;
    return;
  }
  NoteIfForeignStack(t, addr);
  if (__builtin_expect(t.tail >= t.tail_limit, 0)) {
    EmitPlainSlow(t, word, pc);
    return;
  }
  // As EmitPlain, with the ring known to have room.
  t.gates = 0;
  CompilerBarrier();
  Slot& slot = t.slots[t.tail & t.mask];
  slot.word = word;
  slot.pc = SlotPc(t, pc);
  t.ring->tail.store(++t.tail, std::memory_order_release);
  CompilerBarrier();
  t.gates = gates;
}

// Every non-plain event a thread records ends its epoch (repeat_filter.h).
inline void EndEpoch(ThreadState& t) {
  StartNextEpoch(t.repeats, t.epoch_tag);
}

// Stamped events in three steps, so an atomic operation can run between reserving space and
// taking its place in the order (under the atomic's stripe lock). Usage:
//   uint32_t saved; if (BeginStamped(t, saved)) { ...; CommitStamped(t, ...); } EndStamped(t,
//   saved);
// BeginStamped closes the gates and makes room for two slots; it returns false if the event
// must be dropped (recording closed). No waiting happens between the stamp and the publication,
// which is what lets the writer wait for exactly the next stamp.
bool BeginStamped(ThreadState& t, uint32_t& saved_gates);
void CommitStamped(ThreadState& t, EventKind kind, uint8_t flags, uint64_t target, uint64_t size,
                   uint64_t pc);
// The same for an atomic access, under its stripe's lock: numbers it in the stripe's sequence
// instead of taking a global stamp. Once the recording has closed the stripe closes and the
// access goes unrecorded, so each stripe's numbered events are a prefix of its operations and
// the writer's last drain knows when it has them all.
void CommitStriped(ThreadState& t, EventKind kind, uint8_t flags, uint64_t target, uint64_t size,
                   uint64_t pc, uint32_t stripe_index);
inline void EndStamped(ThreadState& t, uint32_t saved_gates) {
  CompilerBarrier();
  t.gates = GatesAfterAppend(t, saved_gates);
}

// After the end of the recording a thread's synchronization events go unrecorded (their
// sequences stop numbering, and a full ring is no longer waited for). Its accesses must stop
// with them, or the trace would hold accesses made under a lock whose LOCK is missing, and the
// analysis would see them unprotected. Called by the thread itself when the first of its events
// is dropped for that reason.
void StopRecordingAccesses(ThreadState& t);

// The choke point for every synchronization-like event: takes the next global stamp and
// appends it. Callers invoke it while the synchronization is held (after acquiring, before
// releasing). The replayer's scheduler hook for non-blocking events goes here, before the
// event takes effect.
void EmitStamped(ThreadState& t, EventKind kind, uint8_t flags, uint64_t target, uint64_t size,
                 uint64_t pc);

// Convenience for interposers: records `kind` if the calling thread records events.
inline void RecordSync(EventKind kind, uint8_t flags, uint64_t target, uint64_t size, uint64_t pc) {
  ThreadState& t = tls_thread;
  if (!(t.gates & kGateEvents)) {
    BeforeSectionEvent(t, kind, target);  // a monitor without recording (pecan heal)
    return;
  }
  EmitStamped(t, kind, flags, target, size, pc);
}

inline bool ThreadRecordsEvents() {
  return (tls_thread.gates & kGateEvents) != 0;
}

// An interposer's test before a synchronization call: true when the calling thread records
// events. When it does not, a section monitor that records nothing (pecan heal) is still told
// that `kind` on `target` is about to happen: a healing lock must not stay held while blocked.
inline bool ThreadRecordsEventsBefore(EventKind kind, uint64_t target) {
  ThreadState& t = tls_thread;
  if (t.gates & kGateEvents) return true;
  BeforeSectionEvent(t, kind, target);
  return false;
}

// Closes every gate of the calling thread for the scope's lifetime: the runtime's own work
// (allocations of the writer, dlsym, thread bookkeeping) never appears in the trace.
class RuntimeScope {
 public:
  RuntimeScope() : saved_(tls_thread.gates) {
    tls_thread.gates = 0;
    CompilerBarrier();
  }
  ~RuntimeScope() {
    CompilerBarrier();
    tls_thread.gates = saved_;
  }
  RuntimeScope(const RuntimeScope&) = delete;
  RuntimeScope& operator=(const RuntimeScope&) = delete;

 private:
  uint32_t saved_;
};

// Hooks for the replayer around blocking synchronization calls whose event is recorded after
// the call returns (lock, join, semaphore wait): BeforeBlockingSync waits for the turn of the
// upcoming event before the real call, so two threads never race for the real object;
// AfterBlockingSync follows the call. Recording needs nothing here.
inline void BeforeBlockingSync(EventKind upcoming, uint64_t target, uint64_t pc) {
  BeforeSectionEvent(tls_thread, upcoming, target);
  if (__builtin_expect(tls_thread.gates & kGateReplay, 0)) ReplayAcquireTurn(upcoming, pc, target);
}
inline void AfterBlockingSync() {
  if (__builtin_expect(tls_thread.gates & kGateReplay, 0)) ReplayEndBlocking();
}
// Around a call that blocks until other threads act (barrier wait, a C++ static another thread
// is initializing): the turn goes on to the schedule's next thread first. `call` is the event the
// call reports when it returns (for the report of a run that stays stuck there).
inline void BeforeBlockingOnOthers(EventKind call, uint64_t target, uint64_t pc) {
  BeforeSectionEvent(tls_thread, call, target);
  if (__builtin_expect(tls_thread.gates & kGateReplay, 0)) ReplayBeginBlocking(call, pc, target);
}
inline void AfterBlockingOnOthers() {
  if (__builtin_expect(tls_thread.gates & kGateReplay, 0)) ReplayEndBlocking();
}

}  // namespace pecan::rt
