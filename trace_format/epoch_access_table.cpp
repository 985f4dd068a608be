// EpochAccessTable: linear probing; stale epochs are free slots, so nothing is ever erased.
#include "trace_format/epoch_access_table.h"

#include <algorithm>
#include <utility>

namespace pecan {

uint64_t EpochAccessTable::Hash(const EpochAccess& access) {
  uint64_t h = access.addr * 0x9E3779B97F4A7C15ull;
  h ^= (access.where << 8 | static_cast<uint64_t>(access.kind)) * 0xC2B2AE3D27D4EB4Full;
  h ^= uint64_t{access.size} * 0x165667B19E3779F9ull;
  return h ^ (h >> 29);
}

uint64_t EpochAccessTable::Find(const EpochAccess& access, uint64_t epoch) const {
  if (epoch != epoch_ || live_ == 0) return kAbsent;
  const uint64_t mask = entries_.size() - 1;
  for (uint64_t slot = Hash(access) & mask;; slot = (slot + 1) & mask) {
    const Entry& entry = entries_[slot];
    if (entry.epoch != epoch_) return kAbsent;
    if (entry.access == access) return entry.value;
  }
}

uint64_t EpochAccessTable::FindOrAdd(const EpochAccess& access, uint64_t epoch, uint64_t value) {
  if (epoch != epoch_) {
    epoch_ = epoch;
    live_ = 0;
  }
  if ((live_ + 1) * 2 > entries_.size()) Grow();
  const uint64_t mask = entries_.size() - 1;
  for (uint64_t slot = Hash(access) & mask;; slot = (slot + 1) & mask) {
    Entry& entry = entries_[slot];
    if (entry.epoch != epoch_) {
      entry = Entry{access, epoch_, value};
      ++live_;
      return value;
    }
    if (entry.access == access) return entry.value;
  }
}

void EpochAccessTable::Grow() {
  std::vector<Entry> old = std::move(entries_);
  entries_.assign(std::max<size_t>(16, old.size() * 2), Entry{});
  const uint64_t mask = entries_.size() - 1;
  for (const Entry& entry : old) {
    if (entry.epoch != epoch_) continue;
    uint64_t slot = Hash(entry.access) & mask;
    while (entries_[slot].epoch == epoch_) slot = (slot + 1) & mask;
    entries_[slot] = entry;
  }
}

}  // namespace pecan
