// The pthread_t -> serial table behind JOIN events: an unordered_map under a spin lock,
// touched only at thread start, join, detach and end. Its memory is the runtime's own.
#include "recorder/thread_handle_map.h"

#include <unordered_map>

#include "recorder/spin_lock.h"
#include "recorder/thread_state.h"

namespace pecan::rt {
namespace {

struct HandleEntry {
  uint32_t serial = 0;
  bool detached = false;
};

SpinLock handles_lock;
// Never destroyed: threads may still join while static destructors run at exit.
std::unordered_map<pthread_t, HandleEntry>* handles = nullptr;

std::unordered_map<pthread_t, HandleEntry>& Handles() {
  if (handles == nullptr) handles = new std::unordered_map<pthread_t, HandleEntry>();
  return *handles;
}

}  // namespace

void RememberThreadHandle(pthread_t handle, uint32_t serial, bool detached) {
  RuntimeScope scope;
  SpinLockGuard guard(handles_lock);
  Handles()[handle] = HandleEntry{serial, detached};
}

std::optional<uint32_t> FindThreadHandle(pthread_t handle) {
  RuntimeScope scope;
  SpinLockGuard guard(handles_lock);
  auto it = Handles().find(handle);
  if (it == Handles().end()) return std::nullopt;
  return it->second.serial;
}

void ForgetThreadHandle(pthread_t handle, uint32_t serial) {
  RuntimeScope scope;
  SpinLockGuard guard(handles_lock);
  auto it = Handles().find(handle);
  if (it != Handles().end() && it->second.serial == serial) Handles().erase(it);
}

void MarkThreadHandleDetached(pthread_t handle) {
  RuntimeScope scope;
  SpinLockGuard guard(handles_lock);
  auto it = Handles().find(handle);
  if (it != Handles().end()) it->second.detached = true;
}

void ForgetThreadHandleIfDetached(pthread_t handle, uint32_t serial) {
  RuntimeScope scope;
  SpinLockGuard guard(handles_lock);
  auto it = Handles().find(handle);
  if (it != Handles().end() && it->second.detached && it->second.serial == serial) {
    Handles().erase(it);
  }
}

void LockThreadHandlesForFork() {
  handles_lock.lock();
}

void UnlockThreadHandlesAfterFork(bool in_child) {
  if (in_child) {
    RuntimeScope scope;
    Handles().clear();
  }
  handles_lock.unlock();
}

}  // namespace pecan::rt
