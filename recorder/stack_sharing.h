// Which parts of thread stacks (and of the static TLS glibc puts at the top of a thread's stack
// mapping) other threads reach, so their owners record their accesses there from then on.
#pragma once

#include <atomic>
#include <cstdint>

namespace pecan::rt {

struct ThreadState;

// A thread drops its accesses to its own stack (a prefix [stack_lo, stack_lo + filter) of it:
// thread_state.h) unless the stack is shared. It becomes shared, from an address upwards, when
//  - the thread passes pthread_create an argument that points into its own stack: from the
//    creating frame up (frames the thread calls later lie below it and stay filtered);
//  - another thread's recorded access lands in it (the address escaped through memory): from
//    that address (its 16-byte granule) up. The owner's accesses to a location before another
//    thread's first access to it are not recorded, and a stack stays shared until its thread
//    ends (a new thread on a reused stack starts unshared).
// The boundary only moves down (ShareStackFrom), so the owner records its accesses at and above
// the lowest address of its stack another thread reached (the TLS at the top of the mapping
// included), and its deeper frames (a loop on locals called later) stay filtered.
inline constexpr uint64_t kShareGranuleBytes = 16;

// Live thread stacks, by 64 KiB granule: the count of registered stacks that cover a granule
// whose index modulo kStackGranules is the entry's. A zero entry (nearly every address) proves
// the address lies in no registered stack with one load on the hot path; a non-zero one sends
// the access to NoteForeignStackAccess, which looks for the exact stack. 2^20 entries alias
// addresses 64 GiB apart, so a heap address rarely shares an entry with a stack.
inline constexpr uint32_t kStackGranuleShift = 16;
inline constexpr uint64_t kStackGranules = uint64_t{1} << 20;
// (Hidden: read PC-relative on the hot path, not through the GOT.)
extern std::atomic<uint16_t> stack_granules[kStackGranules] __attribute__((visibility("hidden")));

// Bumped whenever a thread's stack is registered or withdrawn: a thread's cached range of another
// stack that is shared already (ThreadState::known_shared_*) holds only while this has not changed.
extern std::atomic<uint32_t> stack_generation __attribute__((visibility("hidden")));

// At most this many live threads have their stacks registered; the stacks of threads beyond it
// are not found by other threads (their own pthread_create rule still applies).
inline constexpr uint32_t kMaxRegisteredStacks = 4096;

inline bool MayBeThreadStack(uint64_t addr) {
  return stack_granules[(addr >> kStackGranuleShift) & (kStackGranules - 1)].load(
             std::memory_order_relaxed) != 0;
}

// `t` (the calling thread) starts or stops being found by other threads' accesses. Call
// RegisterStack once its stack range is known and UnregisterStack before the thread's memory
// (its TLS, which holds `t`) can go away.
void RegisterStack(ThreadState& t);
void UnregisterStack(ThreadState& t);

// Records `owner`'s accesses to its stack from `addr` up (the boundary only moves down).
// Safe from any thread while `owner` is registered.
void ShareStackFrom(ThreadState& owner, uint64_t addr);

// The calling thread `self` recorded an access at `addr`, outside its own stack, where
// MayBeThreadStack holds: if it lies in another live thread's stack, that thread's stack is
// shared from there on. Remembers in `self` the part of that stack known to be shared.
void NoteForeignStackAccess(ThreadState& self, uint64_t addr);

// Fork child: the parent's other threads do not exist here.
void ForgetStacksAfterFork();

}  // namespace pecan::rt
