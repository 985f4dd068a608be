// The single-producer ring one instrumented thread appends its slots to and the background
// writer drains. Allocated with mmap so the runtime's own memory never shows up as ALLOC/FREE.
#pragma once

#include <atomic>
#include <cstdint>

#include "recorder/blocking_state.h"
#include "recorder/event_slot.h"

namespace pecan::rt {

// 64 Ki slots = 1 MiB per thread (touched lazily). At the limit the producing thread waits for
// the writer to drain its own ring; it never waits on another thread.
inline constexpr uint64_t kRingSlots = uint64_t{1} << 16;

struct ThreadRing {
  Slot* slots = nullptr;
  uint64_t mask = kRingSlots - 1;
  uint32_t serial = 0;  // creation serial of the owning thread (0 = the first recorded thread)

  alignas(64) std::atomic<uint64_t> tail{0};  // slots published by the producer
  alignas(64) std::atomic<uint64_t> head{0};  // slots consumed by the writer
  std::atomic<uint32_t> head_epoch{0};        // bumped (and futex-woken) for a waiting producer
  // Non-zero while the producer sleeps for space: the head it needs at least.
  std::atomic<uint64_t> producer_needs_head{0};
  std::atomic<bool> finished{false};   // set after the thread's last slot is published
  ThreadRing* next_pending = nullptr;  // link in the registration list
  // Written at blocking calls and lock events only, on lines of its own.
  alignas(64) BlockingState blocking;
};

// The writer's side of a full ring: publishes `head` and wakes the producer if it sleeps and
// has room enough now: half the ring, or everything it published (`drained_to_tail`, nothing is
// left to write). A producer woken for each bit of space would wake and sleep again at every
// publication (hundreds of thousands of futex calls a second when the writer is the bottleneck).
void PublishRingHead(ThreadRing& ring, uint64_t head, bool drained_to_tail);

// Waking the writer when it idles (a producer's ring is full, or the recording ends).
void WakeWriter();
// The writer's idle wait: returns after a wake-up or `timeout_ns`.
void WriterIdleWait(long timeout_ns);

// Both return/take memory obtained from mmap; CreateRing returns nullptr when out of memory.
ThreadRing* CreateRing(uint32_t serial);
void DestroyRing(ThreadRing* ring);

// Registration: producers push new rings; the writer takes the whole list in creation order.
void PublishRing(ThreadRing* ring);
ThreadRing* TakePublishedRings();  // oldest first, linked by next_pending
void ForgetPublishedRings();       // fork child: the parent's threads do not exist here

}  // namespace pecan::rt
