// FlatHashMap: open addressing with linear probing in one flat array, for the analyzer's
// per-access lookups (access keys, access classes, a unit's classes): at millions of lookups a
// node-based std::unordered_map spends its time on allocation and cache misses. Keys and values
// are small and copyable; there is no erase.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace pecan {

// The usual 64-bit mix (splitmix64's finalizer): identity-like keys spread over the table.
inline size_t MixHash(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return static_cast<size_t>(x ^ (x >> 31));
}

struct U64Hash {
  size_t operator()(uint64_t k) const { return MixHash(k); }
};

template <typename Key, typename Value, typename Hash>
class FlatHashMap {
 public:
  // `initial_slots`: a power of two (small for the many small tables of a streaming search).
  explicit FlatHashMap(size_t initial_slots = kInitialSlots) : slots_(initial_slots) {}

  // The value of `key`, inserted as `fresh` if absent (then `*inserted` is set).
  Value& FindOrInsert(const Key& key, const Value& fresh, bool* inserted) {
    if ((used_ + 1) * 2 > slots_.size()) Grow();  // keep the load under one half
    const size_t mask = slots_.size() - 1;
    for (size_t at = Hash()(key) & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (!slot.used) {
        slot = Slot{key, fresh, true};
        ++used_;
        *inserted = true;
        return slot.value;
      }
      if (slot.key == key) {
        *inserted = false;
        return slot.value;
      }
    }
  }

  // The value of `key`, or nullptr.
  const Value* Find(const Key& key) const {
    const size_t mask = slots_.size() - 1;
    for (size_t at = Hash()(key) & mask;; at = (at + 1) & mask) {
      const Slot& slot = slots_[at];
      if (!slot.used) return nullptr;
      if (slot.key == key) return &slot.value;
    }
  }

  size_t size() const { return used_; }

  // Calls `visit(key, value)` for every entry, in no particular order.
  template <typename Visit>
  void ForEach(Visit&& visit) const {
    for (const Slot& slot : slots_)
      if (slot.used) visit(slot.key, slot.value);
  }

 private:
  static constexpr size_t kInitialSlots = 1024;  // a power of two
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (Slot& slot : old) {
      if (!slot.used) continue;
      size_t at = Hash()(slot.key) & mask;
      while (slots_[at].used) at = (at + 1) & mask;
      slots_[at] = std::move(slot);
    }
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

// For open addressing in tables that grow by a quarter when another entry would fill more than
// 3/4 of them (so they stay 3/5 to 3/4 full; their sizes are not powers of two): whether to grow
// before adding an entry, the size after a growth, an entry's first slot (`bits` bits of its hash,
// scaled to the table), and the slot after one.
inline bool FullerThanThreeQuarters(size_t used, size_t slots) {
  return (used + 1) * 4 > slots * 3;
}
inline size_t GrownByAQuarter(size_t slots) {
  return slots + std::max<size_t>(slots / 4, 4);
}
inline size_t ScaledSlot(uint64_t hash_bits, int bits, size_t slots) {
  return static_cast<size_t>((hash_bits * slots) >> bits);
}
inline size_t NextSlot(size_t at, size_t slots) {
  return at + 1 == slots ? 0 : at + 1;
}

// A set of 32- or 64-bit keys other than kEmpty, in slots of the key alone, growing by a quarter
// (FullerThanThreeQuarters): for sets of millions of small keys (packed pairs of numbers), where a
// FlatHashMap's slot would be twice the key and its load lower.
template <typename Key>
class FlatSet {
 public:
  static_assert(std::is_same_v<Key, uint32_t> || std::is_same_v<Key, uint64_t>);
  static constexpr Key kEmpty = ~Key{0};  // not a key

  explicit FlatSet(size_t initial_slots = 16)
      : slots_(std::max<size_t>(initial_slots, 1), kEmpty) {}

  // Adds `key`; false if it was in the set.
  bool Insert(Key key) {
    if (FullerThanThreeQuarters(used_, slots_.size())) Grow();
    const size_t slots = slots_.size();
    for (size_t at = Home(key, slots);; at = NextSlot(at, slots)) {
      if (slots_[at] == key) return false;
      if (slots_[at] == kEmpty) {
        slots_[at] = key;
        ++used_;
        return true;
      }
    }
  }

  bool Contains(Key key) const {
    const size_t slots = slots_.size();
    for (size_t at = Home(key, slots);; at = NextSlot(at, slots)) {
      if (slots_[at] == key) return true;
      if (slots_[at] == kEmpty) return false;
    }
  }

  size_t size() const { return used_; }

  // Calls f(key) for each key, in no order.
  template <typename F>
  void ForEach(const F& f) const {
    for (const Key key : slots_)
      if (key != kEmpty) f(key);
  }

 private:
  // A key's first place in a table of `slots` (below 2^32): its hash's top half, scaled.
  static size_t Home(Key key, size_t slots) { return ScaledSlot(MixHash(key) >> 32, 32, slots); }

  void Grow() {
    std::vector<Key> old(GrownByAQuarter(slots_.size()), kEmpty);
    old.swap(slots_);
    const size_t slots = slots_.size();
    for (const Key key : old) {
      if (key == kEmpty) continue;
      size_t at = Home(key, slots);
      while (slots_[at] != kEmpty) at = NextSlot(at, slots);
      slots_[at] = key;
    }
  }

  std::vector<Key> slots_;
  size_t used_ = 0;
};
using FlatU64Set = FlatSet<uint64_t>;

// Numbers distinct keys the caller keeps itself (a class's key is in its class record): a slot is
// 8 bytes, the id and a 32-bit tag of the key's hash, however big the key, and the table grows
// by a quarter (FullerThanThreeQuarters). For tables of millions of keys, where a map holding
// the keys would double the memory (and a table that doubles at half load holds 4-8 times its
// keys' slots while it grows).
class FlatIdTable {
 public:
  // `initial_slots`: small for the many small tables of a streaming search.
  explicit FlatIdTable(size_t initial_slots = kInitialSlots)
      : slots_(std::max<size_t>(initial_slots, 1)) {}

  static constexpr uint32_t kNoId = ~0u;

  // The id of the key hashed to `hash` for which `same(id)` holds; if there is none, `next`
  // becomes its id (and `*inserted` is set).
  template <typename Same>
  uint32_t FindOrAdd(uint64_t hash, uint32_t next, Same&& same, bool* inserted) {
    const uint32_t found = Find(hash, same);
    *inserted = found == kNoId;
    if (!*inserted) return found;
    Add(hash, next);
    return next;
  }

  // The id of the key hashed to `hash` for which `same(id)` holds, or kNoId.
  template <typename Same>
  uint32_t Find(uint64_t hash, Same&& same) const {
    const auto tag = static_cast<uint32_t>(MixHash(hash));
    const size_t slots = slots_.size();
    for (size_t at = Home(tag, slots);; at = NextSlot(at, slots)) {
      const Slot& slot = slots_[at];
      if (slot.id_plus_one == 0) return kNoId;
      if (slot.tag == tag && same(slot.id_plus_one - 1)) return slot.id_plus_one - 1;
    }
  }

  // Makes `id` the id of a key hashed to `hash` that has none.
  void Add(uint64_t hash, uint32_t id) {
    if (FullerThanThreeQuarters(used_, slots_.size())) Grow();
    const auto tag = static_cast<uint32_t>(MixHash(hash));
    Place(Slot{id + 1, tag});
    ++used_;
  }

 private:
  static constexpr size_t kInitialSlots = 1024;
  struct Slot {
    uint32_t id_plus_one = 0;  // 0: empty
    uint32_t tag = 0;
  };

  // A tag's first place in a table of `slots` (below 2^32): the tag scaled.
  static size_t Home(uint32_t tag, size_t slots) { return ScaledSlot(tag, 32, slots); }

  // Puts `slot` in the first free place from its tag's home.
  void Place(const Slot& slot) {
    const size_t slots = slots_.size();
    size_t at = Home(slot.tag, slots);
    while (slots_[at].id_plus_one != 0) at = NextSlot(at, slots);
    slots_[at] = slot;
  }

  void Grow() {
    std::vector<Slot> old(GrownByAQuarter(slots_.size()));
    old.swap(slots_);
    for (const Slot& slot : old)
      if (slot.id_plus_one != 0) Place(slot);
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace pecan
