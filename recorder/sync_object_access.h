// Synchronization objects as memory, as ThreadSanitizer models them: initializing or destroying
// a mutex, condition variable, rwlock, spinlock, semaphore or barrier writes the whole object,
// and every use reads its first byte, so a use racing with init/destroy is a race on the object.
#pragma once

#include <cstddef>
#include <cstdint>

#include "recorder/thread_state.h"

namespace pecan::rt {

// A use of the object (lock, wait, post, ...), before the call takes effect.
inline void RecordSyncObjectUse(const volatile void* object, uint64_t pc) {
  RecordAccess(EventKind::kRead, reinterpret_cast<uintptr_t>(object), 1, pc);
}

// Its initialization or destruction, before the call.
inline void RecordSyncObjectLifetime(const volatile void* object, size_t size, uint64_t pc) {
  RecordAccess(EventKind::kWrite, reinterpret_cast<uintptr_t>(object), size, pc);
}

}  // namespace pecan::rt
