// Looking up the real libc/pthread functions behind the runtime's interposers.
// A missing function stays nullptr; its interposer then fails the way libc would (ENOSYS). The
// runtime's own definitions are never taken for the real ones (load_order.h).
#include "recorder/real_functions.h"

#include <dlfcn.h>

#include "recorder/load_order.h"
#include "recorder/thread_state.h"

namespace pecan::rt::real {

#define PECAN_DEFINE_REAL(name) decltype(&::name) name = nullptr;
PECAN_REAL_FUNCTION_LIST(PECAN_DEFINE_REAL)
PECAN_REAL_COND_FUNCTION_LIST(PECAN_DEFINE_REAL)
#undef PECAN_DEFINE_REAL

}  // namespace pecan::rt::real

namespace pecan::rt {
namespace {

void* LookUpIn(void* scope, const char* name, const char* version) {
  return version != nullptr ? dlvsym(scope, name, version) : dlsym(scope, name);
}

// The next definition of `name` after ours. RTLD_NEXT sees only the modules after this one in
// the lookup order; when the runtime was loaded after libc (it came with an instrumented library
// of a program not linked with it) libc lies before it, and the first definition in the whole
// order that is not ours is the real one.
void* RealDefinition(const char* name, const char* version = nullptr) {
  if (void* next = LookUpIn(RTLD_NEXT, name, version)) return next;
  void* first = LookUpIn(RTLD_DEFAULT, name, version);
  return DefinedByRuntime(first) ? nullptr : first;
}

}  // namespace

void ResolveRealFunctions() {
  RuntimeScope scope;  // dlsym may allocate
#define PECAN_RESOLVE(name) real::name = reinterpret_cast<decltype(&::name)>(RealDefinition(#name));
  PECAN_REAL_FUNCTION_LIST(PECAN_RESOLVE)
#undef PECAN_RESOLVE
#define PECAN_RESOLVE_COND(name)                                                          \
  real::name = reinterpret_cast<decltype(&::name)>(RealDefinition(#name, "GLIBC_2.3.2")); \
  if (real::name == nullptr)                                                              \
    real::name = reinterpret_cast<decltype(&::name)>(RealDefinition(#name));
  PECAN_REAL_COND_FUNCTION_LIST(PECAN_RESOLVE_COND)
#undef PECAN_RESOLVE_COND
}

void* LookupNextDefinition(const char* name) {
  RuntimeScope scope;  // dlsym may allocate
  return RealDefinition(name);
}

// Before any other constructor of this library (and of every object that depends on it).
__attribute__((constructor(101))) static void ResolveRealFunctionsAtLoad() {
  ResolveRealFunctions();
}

}  // namespace pecan::rt
