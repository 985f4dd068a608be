// Where the runtime sits in the lookup order, from dladdr/dlsym at start-up (never on the hot
// path).
#include "recorder/load_order.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <atomic>
#include <string>

#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

// Found on first use, without a function-local static: its guard would call the runtime's own
// __cxa_guard_acquire, which resolves the real functions, which asks DefinedByRuntime. Threads
// that race here store the same values.
std::atomic<const void*> own_base{nullptr};
std::atomic<const char*> own_path{nullptr};

void FindOwnModule() {
  if (own_base.load(std::memory_order_acquire) != nullptr) return;
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&FindOwnModule), &info) == 0) return;
  own_path.store(info.dli_fname, std::memory_order_relaxed);
  own_base.store(info.dli_fbase, std::memory_order_release);
}

}  // namespace

bool DefinedByRuntime(const void* symbol) {
  Dl_info info{};
  FindOwnModule();
  return symbol != nullptr && dladdr(symbol, &info) != 0 &&
         info.dli_fbase == own_base.load(std::memory_order_acquire);
}

const char* RuntimeLibraryPath() {
  FindOwnModule();
  const char* path = own_path.load(std::memory_order_relaxed);
  return path != nullptr ? path : "";
}

bool InterposersComeFirst() {
  RuntimeScope scope;  // dlsym may allocate
  return DefinedByRuntime(dlsym(RTLD_DEFAULT, "pthread_create"));
}

void LeaveOutOfChildrenPreload() {
  const char* preload = getenv("LD_PRELOAD");
  const std::string own = RuntimeLibraryPath();
  if (preload == nullptr || own.empty()) return;
  // ld.so splits LD_PRELOAD at spaces and colons.
  std::string kept;
  bool found = false;
  const std::string list = preload;
  for (size_t start = 0; start <= list.size();) {
    size_t end = list.find_first_of(" :", start);
    if (end == std::string::npos) end = list.size();
    const std::string entry = list.substr(start, end - start);
    if (entry == own) {
      found = true;
    } else if (!entry.empty()) {
      kept += (kept.empty() ? "" : ":") + entry;
    }
    start = end + 1;
  }
  if (!found) return;
  if (kept.empty()) {
    unsetenv("LD_PRELOAD");
  } else {
    setenv("LD_PRELOAD", kept.c_str(), 1);
  }
}

}  // namespace pecan::rt
