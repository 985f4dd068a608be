// The fixed-size records that instrumented threads append to their rings, and their packing.
// Plain events take one 16-byte slot; stamped (synchronization) events take two.
#pragma once

#include <cstdint>

#include "trace_format/event_kind.h"

namespace pecan::rt {

// One ring entry. Layouts by kind (IsStampedKind decides which):
//  plain   (READ, WRITE, FUNC_ENTRY, FUNC_EXIT), one slot:
//            word = address (bits 0..47) | kind (48..52) | flags (53..55) | size (56..63)
//            pc   = return address inside the instrumented code (bits 0..47) | repeats of an
//                   access left out since the thread's previous event (48..63,
//                   repeat_filter.h); the same in the first slot of a stamped event
//          An access wider than kMaxInlineSize stores size 0 and is followed by one extension
//          slot {word = size, pc = 0}.
//  stamped (everything else), two slots:
//            slot 0: word = order (bits 0..47) | kind (48..52) | flags (53..55); pc
//            slot 1: word = target (address, key or child thread serial), pc = size
//          The order is the event's place in its sequence (object_sequences.h): for atomic
//          accesses and synchronization on an object, the object's sequence (bits 37..47) and
//          the number in it (bits 0..36); for the other stamped events the global stamp.
struct Slot {
  uint64_t word;
  uint64_t pc;
};
static_assert(sizeof(Slot) == 16);

inline constexpr int kKindShift = 48;
inline constexpr int kFlagsShift = 53;
inline constexpr int kSizeShift = 56;
inline constexpr uint64_t kLow48 = (uint64_t{1} << 48) - 1;
inline constexpr uint64_t kMaxInlineSize = 255;  // larger accesses use an extension slot
inline constexpr uint8_t kMaxFlags = 7;          // 3 bits: memory order 0..5, or one flag bit

constexpr bool IsStampedKind(EventKind kind) {
  // One bit test for the writer's loop: the plain kinds as a mask.
  constexpr uint32_t kPlainKinds = 1u << int(EventKind::kRead) | 1u << int(EventKind::kWrite) |
                                   1u << int(EventKind::kFuncEntry) |
                                   1u << int(EventKind::kFuncExit);
  return int(kind) >= 32 || ((kPlainKinds >> int(kind)) & 1) == 0;
}

constexpr uint64_t PackPlainWord(EventKind kind, uint8_t flags, uint64_t size, uint64_t addr) {
  return (addr & kLow48) | (uint64_t(kind) << kKindShift) |
         (uint64_t(flags & kMaxFlags) << kFlagsShift) | (size << kSizeShift);
}

constexpr uint64_t PackStampWord(EventKind kind, uint8_t flags, uint64_t stamp) {
  return (stamp & kLow48) | (uint64_t(kind) << kKindShift) |
         (uint64_t(flags & kMaxFlags) << kFlagsShift);
}

constexpr EventKind SlotKind(uint64_t word) {
  return EventKind((word >> kKindShift) & 0x1f);
}
constexpr uint8_t SlotFlags(uint64_t word) {
  return uint8_t((word >> kFlagsShift) & kMaxFlags);
}
constexpr uint64_t SlotInlineSize(uint64_t word) {
  return word >> kSizeShift;
}
constexpr uint64_t SlotLow48(uint64_t word) {
  return word & kLow48;
}

// How many slots the event starting with `word` takes: two for a stamped event and for a plain
// access too wide to carry its size inline, else one.
constexpr uint64_t SlotsOfEvent(uint64_t word) {
  const EventKind kind = SlotKind(word);
  if (IsStampedKind(kind)) return 2;
  return SlotInlineSize(word) == 0 && IsPlainAccess(kind) ? 2 : 1;
}

static_assert(kEventKindCount <= 32, "the kind field has 5 bits");

}  // namespace pecan::rt
