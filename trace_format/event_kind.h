// The kinds of events in a trace and small predicates over them.
// Values mirror pecan.proto.EventKind (proto/trace.proto), which documents each kind's fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pecan {

enum class EventKind : uint8_t {
  kUnspecified = 0,
  kRead = 1,
  kWrite = 2,
  kAtomicLoad = 3,
  kAtomicStore = 4,
  kAtomicRmw = 5,
  kLock = 6,
  kUnlock = 7,
  kReadLock = 8,
  kReadUnlock = 9,
  kFork = 10,
  kJoin = 11,
  kThreadBegin = 12,
  kThreadEnd = 13,
  kWait = 14,
  kNotify = 15,
  kNotifyAll = 16,
  kBarrierArrive = 17,
  kBarrierDepart = 18,
  kSemPost = 19,
  kSemWait = 20,
  kAlloc = 21,
  kFree = 22,
  kFuncEntry = 23,
  kFuncExit = 24,
  kRegionBegin = 25,
  kRegionEnd = 26,
  kHbRelease = 27,
  kHbAcquire = 28,
  kFence = 29,
};

inline constexpr int kEventKindCount = 30;

// Memory orders carried in the flags of atomic events and fences.
enum class MemoryOrder : uint8_t {
  kRelaxed = 0,
  kConsume = 1,
  kAcquire = 2,
  kRelease = 3,
  kAcqRel = 4,
  kSeqCst = 5,
};

inline constexpr uint8_t kWaitTimedOutFlag = 1;  // WAIT: no notify woke it
inline constexpr uint8_t kTryLockFlag = 1;       // LOCK/READ_LOCK: acquired by try/timed lock

// Stable lower-case names ("read", "atomic_rmw", ...), used in dumps, JSON and reports.
std::string_view EventKindName(EventKind kind);
std::optional<EventKind> EventKindFromName(std::string_view name);
std::string_view MemoryOrderName(MemoryOrder order);

constexpr bool IsPlainAccess(EventKind k) { return k == EventKind::kRead || k == EventKind::kWrite; }
constexpr bool IsAtomicAccess(EventKind k) {
  return k == EventKind::kAtomicLoad || k == EventKind::kAtomicStore || k == EventKind::kAtomicRmw;
}
constexpr bool IsAccess(EventKind k) { return IsPlainAccess(k) || IsAtomicAccess(k); }
constexpr bool IsWriteAccess(EventKind k) {
  return k == EventKind::kWrite || k == EventKind::kAtomicStore || k == EventKind::kAtomicRmw;
}
constexpr bool IsReadAccess(EventKind k) {
  return k == EventKind::kRead || k == EventKind::kAtomicLoad || k == EventKind::kAtomicRmw;
}
constexpr bool IsAcquire(EventKind k) { return k == EventKind::kLock || k == EventKind::kReadLock; }
constexpr bool IsRelease(EventKind k) { return k == EventKind::kUnlock || k == EventKind::kReadUnlock; }

}  // namespace pecan
