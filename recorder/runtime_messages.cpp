// Runtime messages on stderr, assembled in a stack buffer and written in one write(2).
// One write keeps lines from different threads whole.
#include "recorder/runtime_messages.h"

#include <unistd.h>

#include <atomic>
#include <cstring>

namespace pecan::rt {
namespace {

std::atomic<bool> messages_quiet{false};

size_t Append(char* buffer, size_t used, size_t capacity, const char* text) {
  size_t length = strlen(text);
  if (length > capacity - used) length = capacity - used;
  memcpy(buffer + used, text, length);
  return used + length;
}

}  // namespace

void SetRuntimeMessagesQuiet(bool quiet) {
  messages_quiet.store(quiet, std::memory_order_relaxed);
}

void RuntimeMessage(const char* a, const char* b, const char* c) {
  if (messages_quiet.load(std::memory_order_relaxed)) return;
  constexpr size_t kCapacity = 1024;  // longer messages are cut; the newline always fits
  char line[kCapacity + 1];
  size_t used = Append(line, 0, kCapacity, "pecan-rt: ");
  used = Append(line, used, kCapacity, a);
  used = Append(line, used, kCapacity, b);
  used = Append(line, used, kCapacity, c);
  line[used++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, line, used);
  (void)ignored;
}

}  // namespace pecan::rt
