// The slow paths of event emission: waiting for ring space and appending stamped events.
// See thread_state.h for the slot discipline and why gates are closed while appending.
#include "recorder/thread_state.h"

#include "recorder/blocked_call.h"
#include "recorder/futex.h"
#include "recorder/global_stamp.h"
#include "recorder/object_sequences.h"

namespace pecan::rt {

thread_local constinit ThreadState tls_thread __attribute__((tls_model("initial-exec")));
std::atomic<bool> recording_closed{false};
std::atomic<uint64_t> dropped_events{0};
GlobalStamp global_stamp;

bool WaitForRingSpace(ThreadState& t, uint64_t slots) {
  ThreadRing& ring = *t.ring;
  for (uint32_t attempt = 0;; ++attempt) {
    t.tail_limit = ring.head.load(std::memory_order_acquire) + kRingSlots;
    if (t.tail + slots <= t.tail_limit) return true;
    // After the end of the recording events are no longer wanted, so nothing is lost. But the
    // thread's trace must stay a prefix of what it did: once one of its events is dropped, so
    // are its later accesses. (A LOCK dropped here while the access after it found room when the
    // writer drained once more gave that access without its lock: a false race.)
    if (recording_closed.load(std::memory_order_relaxed)) {
      StopRecordingAccesses(t);
      return false;
    }
    if (attempt < 16) {
      __builtin_ia32_pause();
      continue;
    }
    // Sleep until the writer hands back space (it wakes us), re-checking after the flag is
    // up so a wake-up between the check and the sleep is not lost.
    const uint32_t epoch = ring.head_epoch.load(std::memory_order_seq_cst);
    ring.producer_needs_head.store(t.tail + slots - kRingSlots, std::memory_order_seq_cst);
    t.tail_limit = ring.head.load(std::memory_order_seq_cst) + kRingSlots;
    if (t.tail + slots > t.tail_limit) {
      WakeWriter();
      FutexWait(&ring.head_epoch, epoch, 2'000'000);
    }
    ring.producer_needs_head.store(0, std::memory_order_relaxed);
  }
}

void EmitPlainSlow(ThreadState& t, uint64_t word, uint64_t pc) {
  EmitPlain(t, word, pc);
}

void RecordAccessSlow(EventKind kind, uint64_t addr, uint64_t size, uint64_t pc) {
  ThreadState& t = tls_thread;
  if (!(t.gates & kGateAccesses)) return;
  if (addr - t.stack_lo < t.stack_filter_bytes.load(std::memory_order_relaxed)) return;
  if (t.gates & kGateSections) {
    SectionsOnAccess(t, kind, addr, size, pc);
    if (t.ring == nullptr) return;  // a monitor without recording (pecan heal)
  }
  BeforeEvent(t, kind, pc, addr, size);
  if (size <= kMaxInlineSize) {
    const uint64_t word = PackPlainWord(kind, 0, size, addr);
    if (t.repeats != nullptr && t.repeats_left_out < kMaxRepeatsBefore &&
        IsRepeat(t.repeats, t.epoch_tag, word, pc)) {
      ++t.repeats_left_out;
      return;
    }
    NoteIfForeignStack(t, addr);
    EmitPlain(t, word, pc);
    return;
  }
  NoteIfForeignStack(t, addr);
  // Wide range: header slot with size 0, then the size. Both go in one append.
  const uint32_t saved = t.gates;
  t.gates = 0;
  CompilerBarrier();
  if (t.tail + 2 <= t.tail_limit || WaitForRingSpace(t, 2)) {
    t.slots[t.tail & t.mask] = Slot{PackPlainWord(kind, 0, 0, addr), SlotPc(t, pc)};
    t.slots[(t.tail + 1) & t.mask] = Slot{size, 0};
    t.tail += 2;
    t.ring->tail.store(t.tail, std::memory_order_release);
  }
  CompilerBarrier();
  t.gates = GatesAfterAppend(t, saved);
}

void StopRecordingAccesses(ThreadState& t) {
  t.recording_over = true;
  t.open_gates &= ~(kGateAccesses | kGateFuncs);
}

bool BeginStamped(ThreadState& t, uint32_t& saved_gates) {
  saved_gates = t.gates;
  t.gates = 0;
  CompilerBarrier();
  return t.tail + 2 <= t.tail_limit || WaitForRingSpace(t, 2);
}

namespace {

// The two slots of a stamped event whose number `order` is taken, published at once (room was
// reserved by BeginStamped). The event ends the thread's repeat-filter epoch.
inline void AppendStamped(ThreadState& t, EventKind kind, uint8_t flags, uint64_t order,
                          uint64_t target, uint64_t size, uint64_t pc) {
  EndEpoch(t);
  t.slots[t.tail & t.mask] = Slot{PackStampWord(kind, flags, order), SlotPc(t, pc)};
  t.slots[(t.tail + 1) & t.mask] = Slot{target, size};
  t.tail += 2;
  t.ring->tail.store(t.tail, std::memory_order_release);
}

}  // namespace

void CommitStamped(ThreadState& t, EventKind kind, uint8_t flags, uint64_t target, uint64_t size,
                   uint64_t pc) {
  uint64_t order;
  if (IsSyncObjectKind(kind)) {
    // The object's own sequence. Numbers are taken only while recording is open (see
    // object_sequences.h); after the end the event is not wanted.
    if (recording_closed.load(std::memory_order_relaxed)) [[unlikely]] {
      StopRecordingAccesses(t);
      return;
    }
    const uint32_t sequence = SyncSequenceFor(target);
    order = PackSequenceOrder(
        sequence,
        sync_sequences[sequence - kAtomicStripes].numbered.fetch_add(1, std::memory_order_relaxed));
  } else {
    order = TakeStamp();
  }
  AppendStamped(t, kind, flags, order, target, size, pc);
}

void CommitStriped(ThreadState& t, EventKind kind, uint8_t flags, uint64_t target, uint64_t size,
                   uint64_t pc, uint32_t stripe_index) {
  AtomicStripe& stripe = atomic_stripes[stripe_index];
  if (stripe.closed || recording_closed.load(std::memory_order_relaxed)) [[unlikely]] {
    stripe.closed = true;
    StopRecordingAccesses(t);
    return;
  }
  const uint64_t number = stripe.numbered.load(std::memory_order_relaxed);
  stripe.numbered.store(number + 1, std::memory_order_release);
  AppendStamped(t, kind, flags, PackSequenceOrder(stripe_index, number), target, size, pc);
}

void EmitStamped(ThreadState& t, EventKind kind, uint8_t flags, uint64_t target, uint64_t size,
                 uint64_t pc) {
  BeforeSectionEvent(t, kind, target);
  BeforeEvent(t, kind, pc, target, size);
  NoteLockEvent(t, kind, target, pc);
  uint32_t saved;
  if (BeginStamped(t, saved)) CommitStamped(t, kind, flags, target, size, pc);
  EndStamped(t, saved);
}

}  // namespace pecan::rt
