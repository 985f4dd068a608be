// The sequences that order stamped events. One counter for the whole program would be the
// simplest order, but every thread's every synchronization would then pull the same cache line:
// instead each object's events are numbered in the object's own sequence, and only events with
// no object (thread creation and end, allocation, fences, regions) take the global stamp
// (global_stamp.h). The writer merges the sequences (merge_turns.h).
//
//  - Atomic accesses: the 1024 atomic stripes (atomic_stripes.h), numbered under the stripe's
//    lock together with the operation, so the order is the location's modification order.
//  - Synchronization on an object (mutexes, rwlocks, condition variables, barriers, semaphores,
//    happens-before annotations): 1024 sequences keyed by the object's address, numbered with a
//    fetch_add while the synchronization is held (after acquiring, before releasing), as the
//    global stamp was.
//
// A number is published without waiting once taken (ring space is reserved first), and numbers
// are only taken while recording is open, so each sequence's recorded events are a prefix of
// its operations and the writer's last drain knows when it has them all.
#pragma once

#include <atomic>
#include <cstdint>

#include "recorder/atomic_stripes.h"
#include "trace_format/event_kind.h"

namespace pecan::rt {

inline constexpr uint32_t kSyncSequences = 1024;
// Sequence ids: atomic stripes first, then the synchronization sequences.
inline constexpr uint32_t kObjectSequences = kAtomicStripes + kSyncSequences;

// A slot's 48-bit order field holds the sequence id above kSequenceNumberBits bits of number;
// the writer keeps full counts and compares modulo 2^kSequenceNumberBits.
inline constexpr int kSequenceNumberBits = 37;
inline constexpr uint64_t kSequenceNumberMask = (uint64_t{1} << kSequenceNumberBits) - 1;
static_assert(kObjectSequences <= (uint64_t{1} << (48 - kSequenceNumberBits)));

struct alignas(64) SyncSequence {
  std::atomic<uint64_t> numbered{0};
};
extern SyncSequence sync_sequences[kSyncSequences];

constexpr bool IsAtomicStripeKind(EventKind kind) {
  return IsAtomicAccess(kind);
}

// Synchronization events on an object whose address is their target.
constexpr bool IsSyncObjectKind(EventKind kind) {
  switch (kind) {
    case EventKind::kLock:
    case EventKind::kUnlock:
    case EventKind::kReadLock:
    case EventKind::kReadUnlock:
    case EventKind::kWait:
    case EventKind::kNotify:
    case EventKind::kNotifyAll:
    case EventKind::kBarrierArrive:
    case EventKind::kBarrierDepart:
    case EventKind::kSemPost:
    case EventKind::kSemWait:
    case EventKind::kHbRelease:
    case EventKind::kHbAcquire:
      return true;
    default:
      return false;
  }
}

constexpr bool IsObjectOrderedKind(EventKind kind) {
  return IsAtomicStripeKind(kind) || IsSyncObjectKind(kind);
}

inline uint32_t SyncSequenceFor(uint64_t object) {
  uint64_t key = object >> 3;
  key ^= key >> 10;
  key ^= key >> 20;
  return kAtomicStripes + uint32_t(key % kSyncSequences);
}

constexpr uint64_t PackSequenceOrder(uint32_t sequence, uint64_t number) {
  return (uint64_t(sequence) << kSequenceNumberBits) | (number & kSequenceNumberMask);
}

// How many numbers sequence `id` has handed out so far.
inline uint64_t SequenceNumbered(uint32_t id) {
  if (id < kAtomicStripes) return atomic_stripes[id].numbered.load(std::memory_order_acquire);
  return sync_sequences[id - kAtomicStripes].numbered.load(std::memory_order_acquire);
}

// A forked child that records starts every synchronization sequence afresh (the atomic stripes
// are reset with their locks, atomic_stripes.h).
void ResetSyncSequencesAfterFork();

}  // namespace pecan::rt
