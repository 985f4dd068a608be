// Looking up the real libc/pthread functions behind the runtime's interposers.
// A missing function stays nullptr; its interposer then fails the way libc would (ENOSYS).
#include "recorder/real_functions.h"

#include <dlfcn.h>

#include "recorder/thread_state.h"

namespace pecan::rt::real {

#define PECAN_DEFINE_REAL(name) decltype(&::name) name = nullptr;
PECAN_REAL_FUNCTION_LIST(PECAN_DEFINE_REAL)
PECAN_REAL_COND_FUNCTION_LIST(PECAN_DEFINE_REAL)
#undef PECAN_DEFINE_REAL

}  // namespace pecan::rt::real

namespace pecan::rt {

void ResolveRealFunctions() {
  RuntimeScope scope;  // dlsym may allocate
#define PECAN_RESOLVE(name) \
  real::name = reinterpret_cast<decltype(&::name)>(dlsym(RTLD_NEXT, #name));
  PECAN_REAL_FUNCTION_LIST(PECAN_RESOLVE)
#undef PECAN_RESOLVE
#define PECAN_RESOLVE_COND(name)                                                             \
  real::name = reinterpret_cast<decltype(&::name)>(dlvsym(RTLD_NEXT, #name, "GLIBC_2.3.2")); \
  if (real::name == nullptr)                                                                 \
    real::name = reinterpret_cast<decltype(&::name)>(dlsym(RTLD_NEXT, #name));
  PECAN_REAL_COND_FUNCTION_LIST(PECAN_RESOLVE_COND)
#undef PECAN_RESOLVE_COND
}

void* LookupNextDefinition(const char* name) {
  RuntimeScope scope;  // dlsym may allocate
  return dlsym(RTLD_NEXT, name);
}

// Before any other constructor of this library (and of every object that depends on it).
__attribute__((constructor(101))) static void ResolveRealFunctionsAtLoad() {
  ResolveRealFunctions();
}

}  // namespace pecan::rt
