// UnitGroupKeys: the keys of a list of unit groups (the units of one thread, patterns and lock
// prefilter, which pair with the same classes), kept beside the list in 12 bytes each. Finding a
// unit's group reads a few cache lines of keys, not a line per group: the atomicity searches do it
// for every unit they form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/flat_hash_map.h"
#include "analyzer/window_prefilter.h"

namespace pecan {

class UnitGroupKeys {
 public:
  // The index of the group of `thread`, patterns `mask` (of pattern group `group`, for a search
  // of several) and `prefilter` for which `same(index)` holds, or size() if none does. `same`
  // compares what the key does not hold exactly (the prefilter's sets).
  template <typename Same>
  size_t Find(uint32_t thread, uint32_t mask, uint32_t group, const WindowPrefilter& prefilter,
              Same&& same) const {
    const Key key{thread, mask, Tag(group, prefilter)};
    for (size_t k = 0; k < keys_.size(); ++k) {
      if (keys_[k] == key && same(k)) return k;
    }
    return keys_.size();
  }

  // The key of a group appended to the list.
  void Add(uint32_t thread, uint32_t mask, uint32_t group, const WindowPrefilter& prefilter) {
    keys_.push_back(Key{thread, mask, Tag(group, prefilter)});
  }

  size_t size() const { return keys_.size(); }

 private:
  struct Key {
    uint32_t thread = 0;
    uint32_t mask = 0;
    uint32_t tag = 0;  // a hash of the pattern group and the prefilter
    bool operator==(const Key&) const = default;
  };

  static uint32_t Tag(uint32_t group, const WindowPrefilter& prefilter) {
    uint64_t h = uint64_t{group} << 32 | prefilter.count;
    for (size_t k = 0; k < prefilter.count; ++k) h = MixHash(h ^ prefilter.sets[k]);
    return static_cast<uint32_t>(MixHash(h));
  }

  std::vector<Key> keys_;
};

}  // namespace pecan
