// The lock prefilter of pattern_search.cpp's BindUnitClass, as the streaming searches keep it per
// unit: the distinct lock-address sets the interrupted thread holds at the slots of a window of
// at most kSlots + 1 slots, at most kSets of them, every slot holding some lock; otherwise none
// (the prefilter does not apply). A class is skipped when each of these sets excludes its locks.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "analyzer/held_locks.h"

namespace pecan {

struct WindowPrefilter {
  static constexpr uint64_t kSlots = 64;
  static constexpr size_t kSets = 4;

  std::array<uint32_t, kSets> sets{};
  size_t count = 0;

  // The prefilter of a window of slots lo..hi; `lockset_at(k)` gives the k-th slot's set (any
  // order: k from 0 to hi - lo), or a run's (fewer calls, the same sets).
  template <typename LocksetAt>
  static WindowPrefilter Of(uint64_t lo, uint64_t hi, size_t runs, LocksetAt lockset_at) {
    WindowPrefilter f;
    if (hi - lo > kSlots) return f;
    for (size_t k = 0; k < runs; ++k) {
      const uint32_t held = lockset_at(k);
      if (held == 0) return WindowPrefilter{};
      if (std::find(f.sets.begin(), f.sets.begin() + f.count, held) != f.sets.begin() + f.count)
        continue;
      if (f.count == kSets) return WindowPrefilter{};
      size_t at = f.count++;  // kept sorted
      f.sets[at] = held;
      for (; at > 0 && f.sets[at - 1] > f.sets[at]; --at) std::swap(f.sets[at - 1], f.sets[at]);
    }
    return f;
  }

  // Whether the prefilter skips a class holding `lockset`.
  bool Skips(uint32_t lockset, HeldLocks& locks) const {
    return count > 0 && std::all_of(sets.begin(), sets.begin() + count,
                                    [&](uint32_t held) { return locks.Exclusive(held, lockset); });
  }

  // Whether it skips every class whose lock set holds `lock` in write mode: each of its sets
  // holds `lock` too (in either mode), so each excludes such a class.
  bool SkipsEveryClassHolding(uint64_t lock, const HeldLocks& locks) const {
    return count > 0 && std::all_of(sets.begin(), sets.begin() + count,
                                    [&](uint32_t held) { return locks.Contains(held, lock); });
  }

  bool operator==(const WindowPrefilter& o) const {
    return count == o.count && std::equal(sets.begin(), sets.begin() + count, o.sets.begin());
  }
};

}  // namespace pecan
