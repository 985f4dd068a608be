// __assert_fail, interposed so a verdict can tell a failed assert() from any other abort; it
// then fails exactly as glibc's does.
#include <dlfcn.h>

#include "replayer/replay_hooks.h"

extern "C" __attribute__((visibility("default"), noreturn)) void __assert_fail(
    const char* assertion, const char* file, unsigned int line, const char* function) noexcept {
  if (pecan::replay::active_session != nullptr)
    pecan::replay::active_session->OnAssertionFailure(assertion, file, line, function);
  using AssertFail = void (*)(const char*, const char*, unsigned int, const char*);
  auto real = reinterpret_cast<AssertFail>(dlsym(RTLD_NEXT, "__assert_fail"));
  if (real != nullptr) real(assertion, file, line, function);
  __builtin_trap();
}
