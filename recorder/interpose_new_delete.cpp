// C++ operator new/delete. libstdc++'s versions call malloc/free (and would be recorded through
// them), but then every ALLOC's site would be inside libstdc++: defining them here gives each
// allocation the site of the new-expression in the program.
#include <malloc.h>

#include <cstddef>
#include <new>

#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using namespace pecan::rt;

namespace {

inline uint64_t Address(const volatile void* addr) {
  return reinterpret_cast<uintptr_t>(addr);
}

// The standard's loop: retry through the new-handler, throw bad_alloc when there is none.
void* AllocateOrThrow(size_t size, size_t alignment, uint64_t pc) {
  if (size == 0) size = 1;
  for (;;) {
    void* block = alignment <= alignof(std::max_align_t) ? __libc_malloc(size)
                                                         : __libc_memalign(alignment, size);
    if (block != nullptr) {
      if (ThreadRecordsEvents()) RecordSync(EventKind::kAlloc, 0, Address(block), size, pc);
      return block;
    }
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* AllocateOrNull(size_t size, size_t alignment, uint64_t pc) noexcept {
  try {
    return AllocateOrThrow(size, alignment, pc);
  } catch (...) {
    return nullptr;
  }
}

void Release(void* block, uint64_t pc) noexcept {
  if (block == nullptr) return;
  if (ThreadRecordsEvents()) {
    RecordSync(EventKind::kFree, 0, Address(block), malloc_usable_size(block), pc);
  }
  __libc_free(block);
}

constexpr size_t kDefault = alignof(std::max_align_t);

}  // namespace

#define PECAN_NEW_EXPORT __attribute__((visibility("default")))

PECAN_NEW_EXPORT void* operator new(size_t size) {
  return AllocateOrThrow(size, kDefault, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void* operator new[](size_t size) {
  return AllocateOrThrow(size, kDefault, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void* operator new(size_t size, const std::nothrow_t&) noexcept {
  return AllocateOrNull(size, kDefault, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  return AllocateOrNull(size, kDefault, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void* operator new(size_t size, std::align_val_t align) {
  return AllocateOrThrow(size, size_t(align), PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void* operator new[](size_t size, std::align_val_t align) {
  return AllocateOrThrow(size, size_t(align), PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void* operator new(size_t size, std::align_val_t align,
                                    const std::nothrow_t&) noexcept {
  return AllocateOrNull(size, size_t(align), PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void* operator new[](size_t size, std::align_val_t align,
                                      const std::nothrow_t&) noexcept {
  return AllocateOrNull(size, size_t(align), PECAN_CALLER_PC());
}

PECAN_NEW_EXPORT void operator delete(void* block) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete[](void* block) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete(void* block, const std::nothrow_t&) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete[](void* block, const std::nothrow_t&) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete(void* block, size_t) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete[](void* block, size_t) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete(void* block, std::align_val_t) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete[](void* block, std::align_val_t) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete(void* block, size_t, std::align_val_t) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete[](void* block, size_t, std::align_val_t) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete(void* block, std::align_val_t,
                                      const std::nothrow_t&) noexcept {
  Release(block, PECAN_CALLER_PC());
}
PECAN_NEW_EXPORT void operator delete[](void* block, std::align_val_t,
                                        const std::nothrow_t&) noexcept {
  Release(block, PECAN_CALLER_PC());
}
