// Shared pieces of the libc memory, string and stdio interposers: the bytes a call touches
// become one READ or WRITE range event, and the real function is looked up on first use.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "recorder/export.h"
#include "recorder/real_functions.h"
#include "recorder/runtime_code_range.h"
#include "recorder/thread_state.h"

// Declares `internal`, exported under the libc name `symbol`. The assembler name sidesteps the
// C++ overloads <cstring> declares for some of these (strchr, memchr, ...).
#define PECAN_LIBC_INTERPOSER(ret, internal, symbol, ...) \
  extern "C" __attribute__((visibility("default"))) ret internal(__VA_ARGS__) __asm__(symbol)

namespace pecan::rt {

// One lazily resolved real libc function. Racing first calls resolve the same pointer.
template <typename Function>
class RealLibcFunction {
 public:
  explicit constexpr RealLibcFunction(const char* name) : name_(name) {}

  Function Get() {
    Function f = function_.load(std::memory_order_relaxed);
    if (__builtin_expect(f == nullptr, 0)) {
      f = reinterpret_cast<Function>(LookupNextDefinition(name_));
      function_.store(f, std::memory_order_relaxed);
    }
    return f;
  }

 private:
  const char* name_;
  std::atomic<Function> function_{nullptr};
};

// A read or write of `size` bytes at `addr` by the calling thread, if it records accesses.
// Empty ranges record nothing, and neither do the runtime's own calls (its code is not the
// program's). The thread's own stack is filtered as for compiled accesses.
inline void RecordByteRange(EventKind kind, const void* addr, size_t size, uint64_t pc) {
  if (size != 0 && !IsRuntimeCode(pc))
    RecordAccess(kind, reinterpret_cast<uintptr_t>(addr), size, pc);
}

inline void RecordByteRead(const void* addr, size_t size, uint64_t pc) {
  RecordByteRange(EventKind::kRead, addr, size, pc);
}

inline void RecordByteWrite(const void* addr, size_t size, uint64_t pc) {
  RecordByteRange(EventKind::kWrite, addr, size, pc);
}

// True when the calling thread records plain accesses (or a monitor watches them): the
// interposers skip their extra work (string lengths, compare extents) otherwise.
inline bool ThreadWatchesAccesses() {
  return (tls_thread.gates & kGateAccesses) != 0;
}

}  // namespace pecan::rt
