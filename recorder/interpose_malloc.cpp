// Allocator interposers: ALLOC after the block exists, FREE (with the block's usable size)
// before it is returned, so a reused address is a new location in trace order. Forwarded to
// glibc's __libc_* entry points, which needs no dlsym (dlsym itself calls calloc).
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

inline uint64_t Address(const volatile void* addr) {
  return reinterpret_cast<uintptr_t>(addr);
}

inline void RecordAlloc(void* block, size_t size, uint64_t pc) {
  if (block != nullptr && ThreadRecordsEvents())
    RecordSync(EventKind::kAlloc, 0, Address(block), size, pc);
}

inline void RecordFree(void* block, uint64_t pc) {
  if (block != nullptr && ThreadRecordsEvents()) {
    RecordSync(EventKind::kFree, 0, Address(block), malloc_usable_size(block), pc);
  }
}

}  // namespace

PECAN_EXPORT void* malloc(size_t size) {
  void* block = __libc_malloc(size);
  RecordAlloc(block, size, PECAN_CALLER_PC());
  return block;
}

PECAN_EXPORT void free(void* block) {
  RecordFree(block, PECAN_CALLER_PC());
  __libc_free(block);
}

PECAN_EXPORT void* calloc(size_t count, size_t size) {
  void* block = __libc_calloc(count, size);
  RecordAlloc(block, count * size, PECAN_CALLER_PC());  // no overflow: calloc succeeded
  return block;
}

PECAN_EXPORT void* realloc(void* block, size_t size) {
  const uint64_t pc = PECAN_CALLER_PC();
  if (!ThreadRecordsEvents()) return __libc_realloc(block, size);
  if (block == nullptr) {
    void* fresh = __libc_malloc(size);
    RecordAlloc(fresh, size, pc);
    return fresh;
  }
  // The old block is gone (moved, resized or freed by size 0) before the call returns.
  const size_t old_size = malloc_usable_size(block);
  RecordFree(block, pc);
  void* fresh = __libc_realloc(block, size);
  if (fresh != nullptr) {
    RecordAlloc(fresh, size, pc);
  } else if (size != 0) {
    RecordAlloc(block, old_size, pc);  // failed: the old block is still there
  }
  return fresh;
}

PECAN_EXPORT void* reallocarray(void* block, size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  const uint64_t pc = PECAN_CALLER_PC();
  if (!ThreadRecordsEvents() || block == nullptr) {
    void* fresh = __libc_realloc(block, bytes);
    if (block == nullptr) RecordAlloc(fresh, bytes, pc);
    return fresh;
  }
  const size_t old_size = malloc_usable_size(block);
  RecordFree(block, pc);
  void* fresh = __libc_realloc(block, bytes);
  if (fresh != nullptr) {
    RecordAlloc(fresh, bytes, pc);
  } else if (bytes != 0) {
    RecordAlloc(block, old_size, pc);
  }
  return fresh;
}

PECAN_EXPORT int posix_memalign(void** out, size_t alignment, size_t size) {
  int error = REAL(posix_memalign)(out, alignment, size);
  if (error == 0) RecordAlloc(*out, size, PECAN_CALLER_PC());
  return error;
}

PECAN_EXPORT void* aligned_alloc(size_t alignment, size_t size) {
  void* block = REAL(aligned_alloc)(alignment, size);
  RecordAlloc(block, size, PECAN_CALLER_PC());
  return block;
}

PECAN_EXPORT void* memalign(size_t alignment, size_t size) {
  void* block = __libc_memalign(alignment, size);
  RecordAlloc(block, size, PECAN_CALLER_PC());
  return block;
}

PECAN_EXPORT void* valloc(size_t size) {
  void* block = __libc_valloc(size);
  RecordAlloc(block, size, PECAN_CALLER_PC());
  return block;
}

PECAN_EXPORT void* pvalloc(size_t size) {
  void* block = __libc_pvalloc(size);
  RecordAlloc(block, size, PECAN_CALLER_PC());
  return block;
}
