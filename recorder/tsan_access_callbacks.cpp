// The memory-access callbacks gcc and clang emit under -fsanitize=thread: plain, unaligned,
// volatile, explicit-pc, compound read-write, range, vptr and external accesses.
#include <cstddef>

#include "recorder/export.h"
#include "recorder/thread_state.h"

using pecan::EventKind;
using pecan::rt::RecordAccess;

namespace {

inline uint64_t Address(const volatile void* addr) {
  return reinterpret_cast<uintptr_t>(addr);
}

}  // namespace

// Sizes 1..16. Volatile accesses are ordinary reads and writes for the analysis.
#define PECAN_ACCESS_CALLBACKS(size)                                                  \
  PECAN_EXPORT void __tsan_read##size(void* addr) {                                   \
    RecordAccess(EventKind::kRead, Address(addr), size, PECAN_CALLER_PC());           \
  }                                                                                   \
  PECAN_EXPORT void __tsan_write##size(void* addr) {                                  \
    RecordAccess(EventKind::kWrite, Address(addr), size, PECAN_CALLER_PC());          \
  }                                                                                   \
  PECAN_EXPORT void __tsan_unaligned_read##size(const void* addr) {                   \
    RecordAccess(EventKind::kRead, Address(addr), size, PECAN_CALLER_PC());           \
  }                                                                                   \
  PECAN_EXPORT void __tsan_unaligned_write##size(void* addr) {                        \
    RecordAccess(EventKind::kWrite, Address(addr), size, PECAN_CALLER_PC());          \
  }                                                                                   \
  PECAN_EXPORT void __tsan_volatile_read##size(void* addr) {                          \
    RecordAccess(EventKind::kRead, Address(addr), size, PECAN_CALLER_PC());           \
  }                                                                                   \
  PECAN_EXPORT void __tsan_volatile_write##size(void* addr) {                         \
    RecordAccess(EventKind::kWrite, Address(addr), size, PECAN_CALLER_PC());          \
  }                                                                                   \
  PECAN_EXPORT void __tsan_unaligned_volatile_read##size(void* addr) {                \
    RecordAccess(EventKind::kRead, Address(addr), size, PECAN_CALLER_PC());           \
  }                                                                                   \
  PECAN_EXPORT void __tsan_unaligned_volatile_write##size(void* addr) {               \
    RecordAccess(EventKind::kWrite, Address(addr), size, PECAN_CALLER_PC());          \
  }                                                                                   \
  PECAN_EXPORT void __tsan_read##size##_pc(void* addr, void* pc) {                    \
    RecordAccess(EventKind::kRead, Address(addr), size, Address(pc));                 \
  }                                                                                   \
  PECAN_EXPORT void __tsan_write##size##_pc(void* addr, void* pc) {                   \
    RecordAccess(EventKind::kWrite, Address(addr), size, Address(pc));                \
  }                                                                                   \
  /* clang -mllvm -tsan-compound-read-before-write=1: `x += y` reads, then writes. */ \
  PECAN_EXPORT void __tsan_read_write##size(void* addr) {                             \
    const uint64_t pc = PECAN_CALLER_PC();                                            \
    RecordAccess(EventKind::kRead, Address(addr), size, pc);                          \
    RecordAccess(EventKind::kWrite, Address(addr), size, pc);                         \
  }                                                                                   \
  PECAN_EXPORT void __tsan_unaligned_read_write##size(void* addr) {                   \
    const uint64_t pc = PECAN_CALLER_PC();                                            \
    RecordAccess(EventKind::kRead, Address(addr), size, pc);                          \
    RecordAccess(EventKind::kWrite, Address(addr), size, pc);                         \
  }

PECAN_ACCESS_CALLBACKS(1)
PECAN_ACCESS_CALLBACKS(2)
PECAN_ACCESS_CALLBACKS(4)
PECAN_ACCESS_CALLBACKS(8)
PECAN_ACCESS_CALLBACKS(16)

// Packed, bit-field and odd-sized accesses (gcc), and memory touched by intrinsics.
PECAN_EXPORT void __tsan_read_range(void* addr, size_t size) {
  if (size != 0) RecordAccess(EventKind::kRead, Address(addr), size, PECAN_CALLER_PC());
}

PECAN_EXPORT void __tsan_write_range(void* addr, size_t size) {
  if (size != 0) RecordAccess(EventKind::kWrite, Address(addr), size, PECAN_CALLER_PC());
}

PECAN_EXPORT void __tsan_read_range_pc(void* addr, size_t size, void* pc) {
  if (size != 0) RecordAccess(EventKind::kRead, Address(addr), size, Address(pc));
}

PECAN_EXPORT void __tsan_write_range_pc(void* addr, size_t size, void* pc) {
  if (size != 0) RecordAccess(EventKind::kWrite, Address(addr), size, Address(pc));
}

// Storing a vtable pointer is a write of the object's first word. Re-storing the same value
// (a base-class constructor's vptr seen again) is not a new write, as in ThreadSanitizer.
PECAN_EXPORT void __tsan_vptr_update(void** vptr_p, void* new_val) {
  if (*vptr_p != new_val) {
    RecordAccess(EventKind::kWrite, Address(vptr_p), sizeof(void*), PECAN_CALLER_PC());
  }
}

PECAN_EXPORT void __tsan_vptr_read(void** vptr_p) {
  RecordAccess(EventKind::kRead, Address(vptr_p), sizeof(void*), PECAN_CALLER_PC());
}

// Logical accesses to an object that libraries announce (one byte at its address).
PECAN_EXPORT void __tsan_external_read(void* addr, void* caller_pc, void*) {
  RecordAccess(EventKind::kRead, Address(addr), 1, Address(caller_pc));
}

PECAN_EXPORT void __tsan_external_write(void* addr, void* caller_pc, void*) {
  RecordAccess(EventKind::kWrite, Address(addr), 1, Address(caller_pc));
}
