// __assert_fail, interposed so a replay's verdict can tell a failed assert() from any other
// abort; it then fails exactly as glibc's does (message, SIGABRT).
#include <dlfcn.h>

#include "recorder/export.h"
#include "recorder/replay_bridge.h"

PECAN_EXPORT __attribute__((noreturn)) void __assert_fail(const char* assertion, const char* file,
                                                          unsigned int line,
                                                          const char* function) noexcept {
  pecan::rt::ReplayOnAssertionFailure(assertion, file, line, function);
  using AssertFail = void (*)(const char*, const char*, unsigned int, const char*);
  auto real = reinterpret_cast<AssertFail>(dlsym(RTLD_NEXT, "__assert_fail"));
  if (real != nullptr) real(assertion, file, line, function);
  __builtin_trap();
}
