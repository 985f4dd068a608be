// libc's string functions as range accesses: each reads the bytes of its arguments it looks at
// (up to and including a terminator or the first difference) and writes the bytes it stores.
// The bytes are recorded before the call takes effect, so a replay's schedule orders the call
// itself; where the extent depends on the data, it is measured first, then the call runs.
#include <cstddef>

#include "recorder/libc_byte_access.h"

using namespace pecan::rt;

namespace {

using LengthFunction = size_t (*)(const char*);
using BoundedLengthFunction = size_t (*)(const char*, size_t);
using CompareFunction = int (*)(const char*, const char*);
using BoundedCompareFunction = int (*)(const char*, const char*, size_t);
using FindFunction = char* (*)(const char*, int);
using CopyFunction = char* (*)(char*, const char*);
using BoundedCopyFunction = char* (*)(char*, const char*, size_t);
using DuplicateFunction = char* (*)(const char*);
using BoundedDuplicateFunction = char* (*)(const char*, size_t);
using GnuErrorTextFunction = char* (*)(int, char*, size_t);
using PosixErrorTextFunction = int (*)(int, char*, size_t);

RealLibcFunction<LengthFunction> real_strlen("strlen");
RealLibcFunction<BoundedLengthFunction> real_strnlen("strnlen");
RealLibcFunction<CompareFunction> real_strcmp("strcmp");
RealLibcFunction<BoundedCompareFunction> real_strncmp("strncmp");
RealLibcFunction<FindFunction> real_strchr("strchr");
RealLibcFunction<FindFunction> real_strrchr("strrchr");
RealLibcFunction<CopyFunction> real_strcpy("strcpy");
RealLibcFunction<BoundedCopyFunction> real_strncpy("strncpy");
RealLibcFunction<CopyFunction> real_strcat("strcat");
RealLibcFunction<BoundedCopyFunction> real_strncat("strncat");
RealLibcFunction<DuplicateFunction> real_strdup("strdup");
RealLibcFunction<BoundedDuplicateFunction> real_strndup("strndup");
RealLibcFunction<GnuErrorTextFunction> real_strerror_r("strerror_r");
RealLibcFunction<PosixErrorTextFunction> real_xpg_strerror_r("__xpg_strerror_r");

// The bytes a comparison of at most `limit` bytes reads of each string: up to and including the
// first difference or the terminator.
size_t ComparedBytes(const char* a, const char* b, size_t limit) {
  size_t i = 0;
  while (i < limit && a[i] == b[i] && a[i] != '\0') ++i;
  return i < limit ? i + 1 : limit;
}

// The string's bytes with its terminator.
size_t StringBytes(const char* s) {
  return real_strlen.Get()(s) + 1;
}

// The bytes strnlen-style functions read: the string up to `limit`, with its terminator if
// it is within the limit.
size_t BoundedStringBytes(const char* s, size_t limit) {
  const size_t length = real_strnlen.Get()(s, limit);
  return length < limit ? length + 1 : limit;
}

}  // namespace

PECAN_LIBC_INTERPOSER(size_t, PecanStrlen, "strlen", const char* s);
size_t PecanStrlen(const char* s) {
  if (ThreadWatchesAccesses()) RecordByteRead(s, StringBytes(s), PECAN_CALLER_PC());
  return real_strlen.Get()(s);
}

PECAN_LIBC_INTERPOSER(size_t, PecanStrnlen, "strnlen", const char* s, size_t limit);
size_t PecanStrnlen(const char* s, size_t limit) {
  if (ThreadWatchesAccesses()) RecordByteRead(s, BoundedStringBytes(s, limit), PECAN_CALLER_PC());
  return real_strnlen.Get()(s, limit);
}

PECAN_LIBC_INTERPOSER(int, PecanStrcmp, "strcmp", const char* a, const char* b);
int PecanStrcmp(const char* a, const char* b) {
  if (ThreadWatchesAccesses()) {
    const uint64_t pc = PECAN_CALLER_PC();
    const size_t read = ComparedBytes(a, b, ~size_t{0});
    RecordByteRead(a, read, pc);
    RecordByteRead(b, read, pc);
  }
  return real_strcmp.Get()(a, b);
}

PECAN_LIBC_INTERPOSER(int, PecanStrncmp, "strncmp", const char* a, const char* b, size_t n);
int PecanStrncmp(const char* a, const char* b, size_t n) {
  if (ThreadWatchesAccesses()) {
    const uint64_t pc = PECAN_CALLER_PC();
    const size_t read = ComparedBytes(a, b, n);
    RecordByteRead(a, read, pc);
    RecordByteRead(b, read, pc);
  }
  return real_strncmp.Get()(a, b, n);
}

// strchr reads up to the character found; not found, the whole string. strrchr always reads
// the whole string.
PECAN_LIBC_INTERPOSER(char*, PecanStrchr, "strchr", const char* s, int c);
char* PecanStrchr(const char* s, int c) {
  if (ThreadWatchesAccesses()) {
    const char* found = real_strchr.Get()(s, c);
    const size_t read = found == nullptr ? StringBytes(s) : static_cast<size_t>(found - s) + 1;
    RecordByteRead(s, read, PECAN_CALLER_PC());
  }
  return real_strchr.Get()(s, c);
}

PECAN_LIBC_INTERPOSER(char*, PecanStrrchr, "strrchr", const char* s, int c);
char* PecanStrrchr(const char* s, int c) {
  if (ThreadWatchesAccesses()) RecordByteRead(s, StringBytes(s), PECAN_CALLER_PC());
  return real_strrchr.Get()(s, c);
}

PECAN_LIBC_INTERPOSER(char*, PecanStrcpy, "strcpy", char* dst, const char* src);
char* PecanStrcpy(char* dst, const char* src) {
  if (ThreadWatchesAccesses()) {
    const uint64_t pc = PECAN_CALLER_PC();
    const size_t bytes = StringBytes(src);
    RecordByteRead(src, bytes, pc);
    RecordByteWrite(dst, bytes, pc);
  }
  return real_strcpy.Get()(dst, src);
}

// strncpy writes all n bytes (padding with zeros) and reads the source up to n.
PECAN_LIBC_INTERPOSER(char*, PecanStrncpy, "strncpy", char* dst, const char* src, size_t n);
char* PecanStrncpy(char* dst, const char* src, size_t n) {
  if (ThreadWatchesAccesses()) {
    const uint64_t pc = PECAN_CALLER_PC();
    RecordByteRead(src, BoundedStringBytes(src, n), pc);
    RecordByteWrite(dst, n, pc);
  }
  return real_strncpy.Get()(dst, src, n);
}

// strcat reads the destination's string and the source, and writes the source (with its
// terminator) over the destination's terminator.
PECAN_LIBC_INTERPOSER(char*, PecanStrcat, "strcat", char* dst, const char* src);
char* PecanStrcat(char* dst, const char* src) {
  if (ThreadWatchesAccesses()) {
    const uint64_t pc = PECAN_CALLER_PC();
    const size_t dst_length = real_strlen.Get()(dst);
    const size_t src_bytes = StringBytes(src);
    RecordByteRead(dst, dst_length + 1, pc);
    RecordByteRead(src, src_bytes, pc);
    RecordByteWrite(dst + dst_length, src_bytes, pc);
  }
  return real_strcat.Get()(dst, src);
}

// strncat appends at most n bytes of the source and always a terminator.
PECAN_LIBC_INTERPOSER(char*, PecanStrncat, "strncat", char* dst, const char* src, size_t n);
char* PecanStrncat(char* dst, const char* src, size_t n) {
  if (ThreadWatchesAccesses()) {
    const uint64_t pc = PECAN_CALLER_PC();
    const size_t dst_length = real_strlen.Get()(dst);
    const size_t src_read = BoundedStringBytes(src, n);
    const size_t appended = real_strnlen.Get()(src, n);
    RecordByteRead(dst, dst_length + 1, pc);
    RecordByteRead(src, src_read, pc);
    RecordByteWrite(dst + dst_length, appended + 1, pc);
  }
  return real_strncat.Get()(dst, src, n);
}

// The copy goes into a block the calling thread just allocated: only the source is recorded.
PECAN_LIBC_INTERPOSER(char*, PecanStrdup, "strdup", const char* s);
char* PecanStrdup(const char* s) {
  if (ThreadWatchesAccesses()) RecordByteRead(s, StringBytes(s), PECAN_CALLER_PC());
  return real_strdup.Get()(s);
}

PECAN_LIBC_INTERPOSER(char*, PecanStrndup, "strndup", const char* s, size_t n);
char* PecanStrndup(const char* s, size_t n) {
  if (ThreadWatchesAccesses()) RecordByteRead(s, BoundedStringBytes(s, n), PECAN_CALLER_PC());
  return real_strndup.Get()(s, n);
}

// strerror_r writes the message into the caller's buffer (the GNU form may return a static
// string instead and leave the buffer alone). Recorded after the call: its extent is known then.
PECAN_LIBC_INTERPOSER(char*, PecanStrerrorR, "strerror_r", int error, char* buffer, size_t size);
char* PecanStrerrorR(int error, char* buffer, size_t size) {
  char* text = real_strerror_r.Get()(error, buffer, size);
  if (text == buffer && size != 0 && ThreadWatchesAccesses())
    RecordByteWrite(buffer, BoundedStringBytes(buffer, size), PECAN_CALLER_PC());
  return text;
}

PECAN_LIBC_INTERPOSER(int, PecanXpgStrerrorR, "__xpg_strerror_r", int error, char* buffer,
                      size_t size);
int PecanXpgStrerrorR(int error, char* buffer, size_t size) {
  const int result = real_xpg_strerror_r.Get()(error, buffer, size);
  if (size != 0 && ThreadWatchesAccesses())
    RecordByteWrite(buffer, BoundedStringBytes(buffer, size), PECAN_CALLER_PC());
  return result;
}
