// libc's memory functions as range accesses: memcpy/memmove read their source and write their
// destination, memset writes, memcmp/bcmp/memchr read. The compilers emit plain calls to these
// (struct copies, zeroing) that no __tsan_ callback reports; LLVM 15 and later call the
// __tsan_mem* entry points instead, defined here too. _FORTIFY_SOURCE's __*_chk forms as well.
#include <cstddef>

#include "recorder/libc_byte_access.h"

using namespace pecan::rt;

namespace {

using CopyFunction = void* (*)(void*, const void*, size_t);
using SetFunction = void* (*)(void*, int, size_t);
using CompareFunction = int (*)(const void*, const void*, size_t);
using FindFunction = void* (*)(const void*, int, size_t);
using CheckedCopyFunction = void* (*)(void*, const void*, size_t, size_t);
using CheckedSetFunction = void* (*)(void*, int, size_t, size_t);

RealLibcFunction<CopyFunction> real_memcpy("memcpy");
RealLibcFunction<CopyFunction> real_memmove("memmove");
RealLibcFunction<CopyFunction> real_mempcpy("mempcpy");
RealLibcFunction<SetFunction> real_memset("memset");
RealLibcFunction<CompareFunction> real_memcmp("memcmp");
RealLibcFunction<CompareFunction> real_bcmp("bcmp");
RealLibcFunction<FindFunction> real_memchr("memchr");
RealLibcFunction<CheckedCopyFunction> real_memcpy_chk("__memcpy_chk");
RealLibcFunction<CheckedCopyFunction> real_memmove_chk("__memmove_chk");
RealLibcFunction<CheckedSetFunction> real_memset_chk("__memset_chk");

inline void RecordCopy(void* dst, const void* src, size_t n, uint64_t pc) {
  RecordByteRead(src, n, pc);
  RecordByteWrite(dst, n, pc);
}

}  // namespace

PECAN_LIBC_INTERPOSER(void*, PecanMemcpy, "memcpy", void* dst, const void* src, size_t n);
void* PecanMemcpy(void* dst, const void* src, size_t n) {
  RecordCopy(dst, src, n, PECAN_CALLER_PC());
  return real_memcpy.Get()(dst, src, n);
}

PECAN_LIBC_INTERPOSER(void*, PecanMemmove, "memmove", void* dst, const void* src, size_t n);
void* PecanMemmove(void* dst, const void* src, size_t n) {
  RecordCopy(dst, src, n, PECAN_CALLER_PC());
  return real_memmove.Get()(dst, src, n);
}

PECAN_LIBC_INTERPOSER(void*, PecanMempcpy, "mempcpy", void* dst, const void* src, size_t n);
void* PecanMempcpy(void* dst, const void* src, size_t n) {
  RecordCopy(dst, src, n, PECAN_CALLER_PC());
  return real_mempcpy.Get()(dst, src, n);
}

PECAN_LIBC_INTERPOSER(void*, PecanMemset, "memset", void* dst, int value, size_t n);
void* PecanMemset(void* dst, int value, size_t n) {
  RecordByteWrite(dst, n, PECAN_CALLER_PC());
  return real_memset.Get()(dst, value, n);
}

// The whole ranges are read, as ThreadSanitizer's strict_memcmp does: which bytes the real
// comparison looks at depends on the data, and the program's code asked for all of them.
PECAN_LIBC_INTERPOSER(int, PecanMemcmp, "memcmp", const void* a, const void* b, size_t n);
int PecanMemcmp(const void* a, const void* b, size_t n) {
  const uint64_t pc = PECAN_CALLER_PC();
  RecordByteRead(a, n, pc);
  RecordByteRead(b, n, pc);
  return real_memcmp.Get()(a, b, n);
}

PECAN_LIBC_INTERPOSER(int, PecanBcmp, "bcmp", const void* a, const void* b, size_t n);
int PecanBcmp(const void* a, const void* b, size_t n) {
  const uint64_t pc = PECAN_CALLER_PC();
  RecordByteRead(a, n, pc);
  RecordByteRead(b, n, pc);
  return real_bcmp.Get()(a, b, n);
}

// Reads up to and including the byte found, or all n: measured first, then the search runs (in
// its turn, under replay).
PECAN_LIBC_INTERPOSER(void*, PecanMemchr, "memchr", const void* s, int c, size_t n);
void* PecanMemchr(const void* s, int c, size_t n) {
  if (ThreadWatchesAccesses()) {
    const void* found = real_memchr.Get()(s, c, n);
    const size_t read =
        found == nullptr
            ? n
            : static_cast<size_t>(static_cast<const char*>(found) - static_cast<const char*>(s)) +
                  1;
    RecordByteRead(s, read, PECAN_CALLER_PC());
  }
  return real_memchr.Get()(s, c, n);
}

PECAN_LIBC_INTERPOSER(void*, PecanMemcpyChk, "__memcpy_chk", void* dst, const void* src, size_t n,
                      size_t dst_size);
void* PecanMemcpyChk(void* dst, const void* src, size_t n, size_t dst_size) {
  RecordCopy(dst, src, n, PECAN_CALLER_PC());
  return real_memcpy_chk.Get()(dst, src, n, dst_size);
}

PECAN_LIBC_INTERPOSER(void*, PecanMemmoveChk, "__memmove_chk", void* dst, const void* src, size_t n,
                      size_t dst_size);
void* PecanMemmoveChk(void* dst, const void* src, size_t n, size_t dst_size) {
  RecordCopy(dst, src, n, PECAN_CALLER_PC());
  return real_memmove_chk.Get()(dst, src, n, dst_size);
}

PECAN_LIBC_INTERPOSER(void*, PecanMemsetChk, "__memset_chk", void* dst, int value, size_t n,
                      size_t dst_size);
void* PecanMemsetChk(void* dst, int value, size_t n, size_t dst_size) {
  RecordByteWrite(dst, n, PECAN_CALLER_PC());
  return real_memset_chk.Get()(dst, value, n, dst_size);
}

// LLVM 15+ lowers the memory intrinsics under -fsanitize=thread to these.
PECAN_EXPORT void* __tsan_memcpy(void* dst, const void* src, size_t n) {
  RecordCopy(dst, src, n, PECAN_CALLER_PC());
  return real_memcpy.Get()(dst, src, n);
}

PECAN_EXPORT void* __tsan_memmove(void* dst, const void* src, size_t n) {
  RecordCopy(dst, src, n, PECAN_CALLER_PC());
  return real_memmove.Get()(dst, src, n);
}

PECAN_EXPORT void* __tsan_memset(void* dst, int value, size_t n) {
  RecordByteWrite(dst, n, PECAN_CALLER_PC());
  return real_memset.Get()(dst, value, n);
}
