// The table of STD operations (plain RAPID ones and pecan's extensions) and the address ranges
// their names are mapped into. STD_FORMAT.md documents the same table for users.
#include "trace_format/std_vocabulary.h"

#include <array>

namespace pecan {
namespace {

using K = EventKind;
using N = StdNamespace;
using A = StdArgument;

constexpr std::array<StdOperation, 30> kOperations = {{
    {"r", K::kRead, N::kMemory, A::kNone, true, true},
    {"w", K::kWrite, N::kMemory, A::kNone, true, true},
    {"acq", K::kLock, N::kLock, A::kOptionalTry, true, true},
    {"rel", K::kUnlock, N::kLock, A::kNone, true, true},
    {"fork", K::kFork, N::kThread, A::kNone, true, true},
    {"join", K::kJoin, N::kThread, A::kNone, true, true},
    {"aload", K::kAtomicLoad, N::kMemory, A::kOptionalOrder, true, false},
    {"astore", K::kAtomicStore, N::kMemory, A::kOptionalOrder, true, false},
    {"armw", K::kAtomicRmw, N::kMemory, A::kOptionalOrder, true, false},
    {"fence", K::kFence, N::kNone, A::kNone, true, false},  // target is the memory order
    {"racq", K::kReadLock, N::kLock, A::kOptionalTry, true, false},
    {"rrel", K::kReadUnlock, N::kLock, A::kNone, true, false},
    {"begin", K::kThreadBegin, N::kNone, A::kNone, false, false},
    {"end", K::kThreadEnd, N::kNone, A::kNone, false, false},
    {"wait", K::kWait, N::kCondition, A::kOptionalTimeout, true, false},
    {"notify", K::kNotify, N::kCondition, A::kNone, true, false},
    {"notifyall", K::kNotifyAll, N::kCondition, A::kNone, true, false},
    {"barrier_arrive", K::kBarrierArrive, N::kBarrier, A::kRequiredCount, true, false},
    {"barrier_depart", K::kBarrierDepart, N::kBarrier, A::kRequiredCount, true, false},
    {"post", K::kSemPost, N::kSemaphore, A::kNone, true, false},
    {"semwait", K::kSemWait, N::kSemaphore, A::kNone, true, false},
    {"alloc", K::kAlloc, N::kMemory, A::kRequiredCount, true, false},
    {"free", K::kFree, N::kMemory, A::kRequiredCount, true, false},
    {"enter", K::kFuncEntry, N::kFunction, A::kNone, true, false},
    {"exit", K::kFuncExit, N::kFunction, A::kNone, true, false},
    {"begin", K::kRegionBegin, N::kRegion, A::kNone, true, false},
    {"end", K::kRegionEnd, N::kRegion, A::kNone, true, false},
    {"hbrel", K::kHbRelease, N::kHbKey, A::kNone, true, false},
    {"hbacq", K::kHbAcquire, N::kHbKey, A::kNone, true, false},
    // A fence may also be written without a target; it is then seq_cst.
    {"fence", K::kFence, N::kNone, A::kNone, false, false},
}};

constexpr std::array<std::string_view, 6> kOrderNames = {"relaxed", "consume", "acquire",
                                                         "release", "acq_rel", "seq_cst"};

}  // namespace

const StdOperation* FindStdOperation(std::string_view name, bool has_parentheses) {
  for (const auto& op : kOperations)
    if (op.name == name && op.has_parentheses == has_parentheses) return &op;
  return nullptr;
}

const StdOperation* StdOperationForKind(EventKind kind) {
  for (const auto& op : kOperations)
    if (op.kind == kind) return &op;  // the first entry per kind is the canonical spelling
  return nullptr;
}

char StdNamespaceLetter(StdNamespace space) {
  switch (space) {
    case StdNamespace::kMemory:
      return 'V';
    case StdNamespace::kLock:
      return 'L';
    case StdNamespace::kCondition:
      return 'C';
    case StdNamespace::kBarrier:
      return 'B';
    case StdNamespace::kSemaphore:
      return 'S';
    case StdNamespace::kRegion:
      return 'R';
    case StdNamespace::kHbKey:
      return 'K';
    case StdNamespace::kFunction:
      return 'F';
    default:
      return 'X';
  }
}

uint64_t StdNamespaceBase(StdNamespace space) {
  return static_cast<uint64_t>(space) * kStdNamespaceSpan;
}

std::optional<MemoryOrder> MemoryOrderFromName(std::string_view name) {
  for (size_t i = 0; i < kOrderNames.size(); ++i)
    if (kOrderNames[i] == name) return static_cast<MemoryOrder>(i);
  return std::nullopt;
}

}  // namespace pecan
