// The first occurrence of each plain access in one thread's current epoch (the stretch since its
// last non-access event): how clips mark repeated accesses and how replay recognizes them.
#pragma once

#include <cstdint>
#include <vector>

#include "trace_format/event_kind.h"

namespace pecan {

// One access as repeats compare it: address, size, kind and where it was made (a site id in a
// trace, a code address in a running program).
struct EpochAccess {
  uint64_t addr = 0;
  uint64_t where = 0;
  uint32_t size = 0;
  EventKind kind = EventKind::kRead;
  bool operator==(const EpochAccess&) const = default;
};

// Open addressing over one thread's accesses. An entry of an older epoch counts as empty, so a
// new epoch costs nothing and the table only grows to the largest epoch. Epochs are numbered
// from 1 and only ever grow.
class EpochAccessTable {
 public:
  static constexpr uint64_t kAbsent = UINT64_MAX;

  // The value stored with `access` in `epoch` (the current one), or kAbsent.
  uint64_t Find(const EpochAccess& access, uint64_t epoch) const;
  // The value stored with `access` in `epoch`; stores `value` (and returns it) when there is none.
  // A newer `epoch` than the last one seen starts it.
  uint64_t FindOrAdd(const EpochAccess& access, uint64_t epoch, uint64_t value);

 private:
  struct Entry {
    EpochAccess access;
    uint64_t epoch = 0;  // 0: never used
    uint64_t value = 0;
  };
  static uint64_t Hash(const EpochAccess& access);
  // Doubles the table (at least 16 entries), keeping the current epoch's entries.
  void Grow();

  std::vector<Entry> entries_;  // a power of two in size, at most half of it current
  uint64_t epoch_ = 0;
  uint64_t live_ = 0;  // entries of epoch_
};

}  // namespace pecan
