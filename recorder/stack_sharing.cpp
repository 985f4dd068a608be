// The registry of live thread stacks and the marking of a stack as shared when another thread
// reaches it. See stack_sharing.h for the rules; the hot path only reads stack_granules.
#include "recorder/stack_sharing.h"

#include <sched.h>

#include "recorder/spin_lock.h"
#include "recorder/thread_state.h"

namespace pecan::rt {

std::atomic<uint16_t> stack_granules[kStackGranules];
std::atomic<uint32_t> stack_generation{0};

namespace {

// One registered stack. Written under `registry_lock` (register, unregister); read without it.
// A thread that marks the owner's stack counts itself in `markers` first, and the owner waits
// for them to leave after withdrawing `owner`, so nobody writes into a thread state (in the
// owner's TLS, which dies with the thread) after UnregisterStack returned.
// `shared_from` mirrors the owner's boundary (stack_lo + stack_filter_bytes), so an access to a
// part already shared (a worker using main's queue through a reference, at every access) costs
// a lookup and a load, not a write to a line all threads read.
struct StackEntry {
  std::atomic<uint64_t> lo{0};
  std::atomic<uint64_t> hi{0};
  std::atomic<uint64_t> shared_from{0};
  std::atomic<ThreadState*> owner{nullptr};
  std::atomic<uint32_t> markers{0};
};

SpinLock registry_lock;
StackEntry entries[kMaxRegisteredStacks];
std::atomic<uint32_t> entries_used{0};  // entries at and above this index are all free

// Adds `delta` to the granules [lo, hi) touches. Under registry_lock.
void CountGranules(uint64_t lo, uint64_t hi, int delta) {
  if (hi <= lo) return;
  const uint64_t first = lo >> kStackGranuleShift;
  const uint64_t last = (hi - 1) >> kStackGranuleShift;
  for (uint64_t granule = first; granule <= last && granule - first < kStackGranules; ++granule) {
    std::atomic<uint16_t>& count = stack_granules[granule & (kStackGranules - 1)];
    count.store(uint16_t(count.load(std::memory_order_relaxed) + delta), std::memory_order_relaxed);
  }
}

// Moves `owner`'s boundary down to `addr` (never up), and its entry's mirror with it.
void ShareFrom(ThreadState& owner, StackEntry* entry, uint64_t addr) {
  const uint64_t boundary = addr > owner.stack_lo ? addr - owner.stack_lo : 0;
  uint64_t filter = owner.stack_filter_bytes.load(std::memory_order_relaxed);
  while (boundary < filter && !owner.stack_filter_bytes.compare_exchange_weak(
                                  filter, boundary, std::memory_order_relaxed)) {
  }
  if (entry == nullptr) return;
  uint64_t from = entry->shared_from.load(std::memory_order_relaxed);
  while (owner.stack_lo + boundary < from &&
         !entry->shared_from.compare_exchange_weak(from, owner.stack_lo + boundary,
                                                   std::memory_order_relaxed)) {
  }
}

}  // namespace

void RegisterStack(ThreadState& t) {
  if (t.stack_bytes == 0) return;
  UnregisterStack(t);  // registered before (a forked child's thread records anew)
  SpinLockGuard guard(registry_lock);
  const uint32_t used = entries_used.load(std::memory_order_relaxed);
  uint32_t index = 0;
  while (index < used && entries[index].owner.load(std::memory_order_relaxed) != nullptr) ++index;
  if (index == kMaxRegisteredStacks) return;
  StackEntry& entry = entries[index];
  entry.lo.store(t.stack_lo, std::memory_order_relaxed);
  entry.hi.store(t.stack_lo + t.stack_bytes, std::memory_order_relaxed);
  entry.shared_from.store(t.stack_lo + t.stack_filter_bytes.load(std::memory_order_relaxed),
                          std::memory_order_relaxed);
  entry.owner.store(&t, std::memory_order_release);
  if (index == used) entries_used.store(used + 1, std::memory_order_release);
  CountGranules(t.stack_lo, t.stack_lo + t.stack_bytes, 1);
  t.stack_slot = int32_t(index);
  // A new stack may lie where a thread remembers another's shared part: forget those.
  stack_generation.fetch_add(1, std::memory_order_release);
}

void UnregisterStack(ThreadState& t) {
  if (t.stack_slot < 0) return;
  StackEntry& entry = entries[t.stack_slot];
  t.stack_slot = -1;
  stack_generation.fetch_add(1, std::memory_order_relaxed);
  // seq_cst with the markers' increment and load of `owner` (NoteForeignStackAccess): either
  // a marker sees no owner, or we see the marker and wait for it.
  entry.owner.store(nullptr, std::memory_order_seq_cst);
  for (uint32_t attempt = 0; entry.markers.load(std::memory_order_seq_cst) != 0; ++attempt) {
    if (attempt < 32) {
      __builtin_ia32_pause();
    } else {
      sched_yield();  // the marker may be descheduled
    }
  }
  SpinLockGuard guard(registry_lock);
  CountGranules(entry.lo.load(std::memory_order_relaxed), entry.hi.load(std::memory_order_relaxed),
                -1);
  entry.lo.store(0, std::memory_order_relaxed);
  entry.hi.store(0, std::memory_order_relaxed);
}

void ShareStackFrom(ThreadState& owner, uint64_t addr) {
  ShareFrom(owner, owner.stack_slot >= 0 ? &entries[owner.stack_slot] : nullptr, addr);
}

void NoteForeignStackAccess(ThreadState& self, uint64_t addr) {
  const uint32_t generation = stack_generation.load(std::memory_order_acquire);
  const uint32_t used = entries_used.load(std::memory_order_acquire);
  for (uint32_t index = 0; index < used; ++index) {
    StackEntry& entry = entries[index];
    if (addr - entry.lo.load(std::memory_order_relaxed) >=
        entry.hi.load(std::memory_order_relaxed) - entry.lo.load(std::memory_order_relaxed))
      continue;
    const uint64_t shared_from = entry.shared_from.load(std::memory_order_relaxed);
    if (addr >= shared_from) {  // shared already: remember the part, no lookup next time
      self.known_shared_lo = shared_from;
      self.known_shared_bytes = entry.hi.load(std::memory_order_relaxed) - shared_from;
      self.known_shared_generation = generation;
      return;
    }
    entry.markers.fetch_add(1, std::memory_order_seq_cst);
    ThreadState* owner = entry.owner.load(std::memory_order_seq_cst);
    // The entry may have been handed to a new thread meanwhile: mark it only if `addr` is in
    // the stack of the thread that holds it now.
    if (owner != nullptr && addr - owner->stack_lo < owner->stack_bytes &&
        owner->stack_filter_bytes.load(std::memory_order_relaxed) > addr - owner->stack_lo) {
      ShareFrom(*owner, &entry, addr & ~(kShareGranuleBytes - 1));
    }
    entry.markers.fetch_sub(1, std::memory_order_release);
    return;
  }
}

void ForgetStacksAfterFork() {
  registry_lock.ResetAfterFork();
  const uint32_t used = entries_used.load(std::memory_order_relaxed);
  for (uint32_t index = 0; index < used; ++index) {
    StackEntry& entry = entries[index];
    CountGranules(entry.lo.load(std::memory_order_relaxed),
                  entry.hi.load(std::memory_order_relaxed), -1);
    entry.lo.store(0, std::memory_order_relaxed);
    entry.hi.store(0, std::memory_order_relaxed);
    entry.owner.store(nullptr, std::memory_order_relaxed);
    entry.markers.store(0, std::memory_order_relaxed);
  }
  entries_used.store(0, std::memory_order_relaxed);
  stack_generation.fetch_add(1, std::memory_order_relaxed);
  tls_thread.stack_slot = -1;
}

}  // namespace pecan::rt
