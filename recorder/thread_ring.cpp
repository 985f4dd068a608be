// Ring allocation and the lock-free registration list of rings.
// The list is a Treiber stack: producers push, the writer takes everything at once.
#include "recorder/thread_ring.h"

#include <sys/mman.h>

#include <new>

#include "recorder/futex.h"

namespace pecan::rt {
namespace {

std::atomic<ThreadRing*> published_rings{nullptr};
std::atomic<uint32_t> writer_epoch{0};
std::atomic<uint32_t> writer_sleeping{0};

void* MapZeroed(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

ThreadRing* CreateRing(uint32_t serial) {
  void* header = MapZeroed(sizeof(ThreadRing));
  void* slots = MapZeroed(kRingSlots * sizeof(Slot));
  if (header == nullptr || slots == nullptr) {
    if (header != nullptr) munmap(header, sizeof(ThreadRing));
    if (slots != nullptr) munmap(slots, kRingSlots * sizeof(Slot));
    return nullptr;
  }
  auto* ring = new (header) ThreadRing();
  ring->slots = static_cast<Slot*>(slots);
  ring->serial = serial;
  return ring;
}

void DestroyRing(ThreadRing* ring) {
  munmap(ring->slots, kRingSlots * sizeof(Slot));
  ring->~ThreadRing();
  munmap(ring, sizeof(ThreadRing));
}

void PublishRingHead(ThreadRing& ring, uint64_t head, bool drained_to_tail) {
  ring.head.store(head, std::memory_order_seq_cst);
  const uint64_t needs = ring.producer_needs_head.load(std::memory_order_seq_cst);
  if (needs != 0 && head >= needs && (drained_to_tail || head - needs >= kRingSlots / 2)) {
    ring.head_epoch.fetch_add(1, std::memory_order_seq_cst);
    FutexWakeAll(&ring.head_epoch);
  }
}

void WakeWriter() {
  if (writer_sleeping.load(std::memory_order_seq_cst) != 0) {
    writer_epoch.fetch_add(1, std::memory_order_seq_cst);
    FutexWakeAll(&writer_epoch);
  }
}

void WriterIdleWait(long timeout_ns) {
  const uint32_t epoch = writer_epoch.load(std::memory_order_seq_cst);
  writer_sleeping.store(1, std::memory_order_seq_cst);
  FutexWait(&writer_epoch, epoch, timeout_ns);
  writer_sleeping.store(0, std::memory_order_seq_cst);
}

void PublishRing(ThreadRing* ring) {
  ThreadRing* top = published_rings.load(std::memory_order_relaxed);
  do {
    ring->next_pending = top;
  } while (!published_rings.compare_exchange_weak(top, ring, std::memory_order_release,
                                                  std::memory_order_relaxed));
}

ThreadRing* TakePublishedRings() {
  ThreadRing* newest_first = published_rings.exchange(nullptr, std::memory_order_acquire);
  ThreadRing* oldest_first = nullptr;
  while (newest_first != nullptr) {
    ThreadRing* next = newest_first->next_pending;
    newest_first->next_pending = oldest_first;
    oldest_first = newest_first;
    newest_first = next;
  }
  return oldest_first;
}

void ForgetPublishedRings() {
  published_rings.store(nullptr, std::memory_order_relaxed);
}

}  // namespace pecan::rt
