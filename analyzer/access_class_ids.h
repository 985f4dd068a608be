// AccessClassIds: numbers each kept location's access classes in the order of their first
// access, once per access for the atomic-region searches (each used to hash every access into a
// class table of its own). A search that sees every access of a location creates its class
// records in the same order, so the number is its index; one that sees some of them uses the
// number as a name. (The race search numbers the classes of the locations it follows itself, in
// the same order, with a smaller index (ClassIndex), and gives the others its numbers there.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyzer/access_class_key.h"

namespace pecan {

// An access's class on its location.
struct AccessClassRef {
  AccessClassKey key;
  uint32_t id = 0;       // the location's classes are numbered from 0, in order of first access
  bool created = false;  // this access is the class's first
};

class AccessClassIds {
 public:
  // Classes a location keeps in a list, found by a walk; past them, in a hash table. Most
  // locations have a few, and a table holds two to four slots per class.
  static constexpr uint32_t kListSize = 8;

  explicit AccessClassIds(size_t locations) : locations_(locations) {}

  // The class of access `e` to location `l` (described by `info`), made holding `lockset`.
  AccessClassRef Of(LocationId l, const Event& e, uint32_t lockset, const LocationInfo& info) {
    return Of(l, AccessClassKey::Of(e, lockset, info), info);
  }
  // The class of key `key` (AccessClassKey::Of) on location `l`. `last_of_bytes`: no later access
  // touches just the access's bytes (KeptAccesses::IsLastAccessOfBytes), so none has its key: a
  // new class is numbered and not kept, as no one will ask for it again.
  AccessClassRef Of(LocationId l, const AccessClassKey& key, const LocationInfo& info,
                    bool last_of_bytes = false) {
    AccessClassRef c{key};
    c.id = locations_[l].FindOrInsert(Slot::Of(key, info.single_range), !last_of_bytes, &c.created);
    return c;
  }

  // Asks the cache for location l's table. (Inline always, as ChunkListPool::Prefetch.)
  __attribute__((always_inline)) void Prefetch(LocationId l) const {
    __builtin_prefetch(&locations_[l]);
  }

  // No later access touches location `l`: its table goes.
  void Seal(LocationId l) { locations_[l] = Table(); }

 private:
  // A class in its location's table: its key, and its id plus one (0: the slot is empty). The
  // bytes are the first and the size on a location of several byte ranges (an access's size
  // fits 32 bits), and left out on a single-range one, where every class has the location's.
  // 32 bytes, aligned: a lookup reads one cache line (a 40-byte slot spans two every other time).
  struct alignas(32) Slot {
    uint64_t begin = 0;
    uint32_t size = 0;
    ThreadId thread = 0;
    SiteId site = 0;
    uint32_t lockset = 0;
    uint32_t id_plus_one = 0;
    EventKind kind = EventKind::kUnspecified;

    static Slot Of(const AccessClassKey& key, bool single_range) {
      Slot s;
      if (!single_range) {
        s.begin = key.begin;
        s.size = static_cast<uint32_t>(key.end - key.begin);
      }
      s.thread = key.thread;
      s.site = key.site;
      s.lockset = key.lockset;
      s.kind = key.kind;
      return s;
    }
    bool SameKey(const Slot& o) const {
      return thread == o.thread && site == o.site && kind == o.kind && lockset == o.lockset &&
             begin == o.begin && size == o.size;
    }
    size_t Hash() const {
      uint64_t h = (uint64_t{thread} << 32 | site) * 0x9E3779B97F4A7C15ull;
      h ^= (uint64_t{lockset} << 8 | static_cast<uint8_t>(kind)) * 0xBF58476D1CE4E5B9ull;
      h ^= (begin + 0x9E37 * uint64_t{size}) * 0xD6E8FEB86659FD93ull;
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };
  static_assert(sizeof(Slot) == 32);

  // A location's classes: up to kListSize in a list, more in an open-addressing table with
  // linear probing, filled up to three quarters.
  class Table {
   public:
    // The id of `key`'s class, numbered next (and `*created` set) if it has none yet, and kept
    // if `keep`.
    uint32_t FindOrInsert(const Slot& key, bool keep, bool* created) {
      *created = false;
      if (slots_.size() <= kListSize) {  // a list
        for (const Slot& slot : slots_) {
          if (slot.SameKey(key)) return slot.id_plus_one - 1;
        }
        *created = true;
        const uint32_t id = used_++;
        if (!keep) return id;
        if (slots_.size() < kListSize) {
          slots_.push_back(key);
          slots_.back().id_plus_one = id + 1;
          ++kept_;
          return id;
        }
        Rehash(2 * kListSize);  // the first class past kListSize: to a table
        Insert(key, id);
        return id;
      }
      const size_t mask = slots_.size() - 1;
      for (size_t at = key.Hash() & mask;; at = (at + 1) & mask) {
        const Slot& slot = slots_[at];
        if (slot.id_plus_one == 0) break;
        if (slot.SameKey(key)) return slot.id_plus_one - 1;
      }
      *created = true;
      const uint32_t id = used_++;
      if (!keep) return id;
      if ((kept_ + 1) * 4 > slots_.size() * 3) Rehash(slots_.size() * 2);
      Insert(key, id);
      return id;
    }

   private:
    // Puts `key`, of no class yet, into the table as class `id`.
    void Insert(const Slot& key, uint32_t id) {
      const size_t mask = slots_.size() - 1;
      size_t at = key.Hash() & mask;
      while (slots_[at].id_plus_one != 0) at = (at + 1) & mask;
      slots_[at] = key;
      slots_[at].id_plus_one = id + 1;
      ++kept_;
    }

    // Moves the classes into a table of `size` slots (a power of two).
    void Rehash(size_t size) {
      std::vector<Slot> old(size);
      old.swap(slots_);
      const size_t mask = slots_.size() - 1;
      for (const Slot& slot : old) {
        if (slot.id_plus_one == 0) continue;
        size_t at = slot.Hash() & mask;
        while (slots_[at].id_plus_one != 0) at = (at + 1) & mask;
        slots_[at] = slot;
      }
    }

    // A list (up to kListSize): the classes kept; a table (2 kListSize slots or more): the slots.
    std::vector<Slot> slots_;
    uint32_t used_ = 0;  // classes numbered
    uint32_t kept_ = 0;  // classes kept
  };

  std::vector<Table> locations_;
};

// An access's class, numbered only once a search asks for it, and at most once: a search that asks
// on every access of a location gets its classes numbered in order of first access (as Of does);
// one that asks on some of them only, the numbers as names.
class AccessClassLookup {
 public:
  // Access `e` to location `l` (described by `info`), made holding `lockset`; `last_of_bytes` as
  // for AccessClassIds::Of.
  AccessClassLookup(AccessClassIds* ids, LocationId l, const Event& e, uint32_t lockset,
                    const LocationInfo& info, bool last_of_bytes = false)
      : ids_(ids), l_(l), info_(&info), last_of_bytes_(last_of_bytes) {
    ref_.key = AccessClassKey::Of(e, lockset, info);
  }

  const AccessClassKey& key() const { return ref_.key; }
  // The class's number from a search that numbers the location's classes itself, in the same
  // order (the race search): AccessClassIds need not.
  void Provide(uint32_t id, bool created) {
    ref_.id = id;
    ref_.created = created;
    numbered_ = true;
  }
  const AccessClassRef& Get() {
    if (!numbered_) {
      ref_ = ids_->Of(l_, ref_.key, *info_, last_of_bytes_);
      numbered_ = true;
    }
    return ref_;
  }

 private:
  AccessClassIds* ids_;
  LocationId l_;
  const LocationInfo* info_;
  bool last_of_bytes_;
  AccessClassRef ref_;
  bool numbered_ = false;
};

}  // namespace pecan
