// The vocabulary of the STD text format shared by import and export: the operation names, the
// event kind each denotes, and the synthetic address spaces that STD names are mapped into.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "trace_format/event_kind.h"

namespace pecan {

// Which table an operation's target names. STD names live in separate namespaces (a lock and
// a variable may both be called "X"); each namespace maps to its own address range.
enum class StdNamespace : uint8_t {
  kNone,    // no target (thread begin/end) or the target is a memory order (fence)
  kMemory,  // variables and allocated blocks
  kLock,
  kCondition,
  kBarrier,
  kSemaphore,
  kRegion,  // annotated atomic regions (key)
  kHbKey,   // custom happens-before keys
  kFunction,
  kThread,  // fork/join: the target is a thread name
};

// What may follow the target after a comma, e.g. `astore(V1,release)` or `alloc(V1,16)`.
enum class StdArgument : uint8_t {
  kNone,
  kOptionalOrder,    // memory order, seq_cst when absent
  kOptionalTry,      // `try`: acquired by trylock/timedlock
  kOptionalTimeout,  // `timeout`: the wait was not woken by a notify
  kRequiredCount,    // a decimal number carried in the size column
};

struct StdOperation {
  std::string_view name;
  EventKind kind;
  StdNamespace space;
  StdArgument argument;
  bool has_parentheses;  // `begin` (thread) and `begin(R1)` (region) differ only by this
  bool plain;            // in plain STD (RAPID); false marks a pecan extension
};

// Looks an operation up by its lower-case name and whether parentheses followed it.
const StdOperation* FindStdOperation(std::string_view name, bool has_parentheses);
// The operation that writes `kind`; null for kinds STD cannot express.
const StdOperation* StdOperationForKind(EventKind kind);

// Base address of each namespace's synthetic range. Each range spans 4 GiB, far more than
// any text trace needs; import checks that it does not overflow into the next.
uint64_t StdNamespaceBase(StdNamespace space);
// The letter that starts a target of the namespace in STD text: V, L, C, B, S, R, K, F.
char StdNamespaceLetter(StdNamespace space);
inline constexpr uint64_t kStdNamespaceSpan = uint64_t{1} << 32;
// Bytes given to each STD variable (the size of every imported read and write).
inline constexpr uint32_t kStdVariableBytes = 8;
// Sites whose STD location is not a number get an offset with this bit set (a hash of the
// label) and keep the label in Trace::names at that offset as address, with size 0.
inline constexpr uint64_t kStdLabelSiteBit = uint64_t{1} << 63;

std::optional<MemoryOrder> MemoryOrderFromName(std::string_view name);

}  // namespace pecan
