// The program's buffers that stdio calls read or fill, as range accesses: fputs/puts/fwrite read
// the caller's bytes, fread/fgets write what they stored. The FILE itself is locked by stdio
// and is not recorded.
#include <cstddef>
#include <cstdio>

#include "recorder/libc_byte_access.h"

using namespace pecan::rt;

namespace {

using PutStringFunction = int (*)(const char*, FILE*);
using PutLineFunction = int (*)(const char*);
using WriteItemsFunction = size_t (*)(const void*, size_t, size_t, FILE*);
using ReadItemsFunction = size_t (*)(void*, size_t, size_t, FILE*);
using GetLineFunction = char* (*)(char*, int, FILE*);
using LengthFunction = size_t (*)(const char*);
using BoundedLengthFunction = size_t (*)(const char*, size_t);

RealLibcFunction<PutStringFunction> real_fputs("fputs");
RealLibcFunction<PutLineFunction> real_puts("puts");
RealLibcFunction<WriteItemsFunction> real_fwrite("fwrite");
RealLibcFunction<ReadItemsFunction> real_fread("fread");
RealLibcFunction<GetLineFunction> real_fgets("fgets");
RealLibcFunction<LengthFunction> real_strlen("strlen");
RealLibcFunction<BoundedLengthFunction> real_strnlen("strnlen");

// The string's bytes up to and including its terminator, where fputs and puts stop reading.
size_t StringBytes(const char* s) {
  return real_strlen.Get()(s) + 1;
}

}  // namespace

PECAN_LIBC_INTERPOSER(int, PecanFputs, "fputs", const char* s, FILE* stream);
int PecanFputs(const char* s, FILE* stream) {
  if (ThreadWatchesAccesses()) RecordByteRead(s, StringBytes(s), PECAN_CALLER_PC());
  return real_fputs.Get()(s, stream);
}

PECAN_LIBC_INTERPOSER(int, PecanPuts, "puts", const char* s);
int PecanPuts(const char* s) {
  if (ThreadWatchesAccesses()) RecordByteRead(s, StringBytes(s), PECAN_CALLER_PC());
  return real_puts.Get()(s);
}

PECAN_LIBC_INTERPOSER(size_t, PecanFwrite, "fwrite", const void* data, size_t size, size_t count,
                      FILE* stream);
size_t PecanFwrite(const void* data, size_t size, size_t count, FILE* stream) {
  RecordByteRead(data, size * count, PECAN_CALLER_PC());
  return real_fwrite.Get()(data, size, count, stream);
}

// What fread stored: the items it returns (a partial last item's bytes are not counted).
PECAN_LIBC_INTERPOSER(size_t, PecanFread, "fread", void* data, size_t size, size_t count,
                      FILE* stream);
size_t PecanFread(void* data, size_t size, size_t count, FILE* stream) {
  const size_t items = real_fread.Get()(data, size, count, stream);
  RecordByteWrite(data, size * items, PECAN_CALLER_PC());
  return items;
}

PECAN_LIBC_INTERPOSER(char*, PecanFgets, "fgets", char* s, int size, FILE* stream);
char* PecanFgets(char* s, int size, FILE* stream) {
  char* line = real_fgets.Get()(s, size, stream);
  if (line != nullptr && size > 0 && ThreadWatchesAccesses()) {
    const size_t limit = static_cast<size_t>(size);
    const size_t length = real_strnlen.Get()(s, limit);
    RecordByteWrite(s, length < limit ? length + 1 : limit, PECAN_CALLER_PC());
  }
  return line;
}
