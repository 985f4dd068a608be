// AccessClassIds: numbers each kept location's access classes in the order of their first
// access, once per access for all the streaming searches (each used to hash every access into
// a class table of its own). A search that sees every access of a location creates its class
// records in the same order, so the number is its index; one that sees some of them uses the
// number as a name.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/access_class_key.h"
#include "analyzer/flat_hash_map.h"

namespace pecan {

static_assert(sizeof(AccessClassKey) <= 32, "AccessClassIds' slots are to fit in 40 bytes");

// An access's class on its location.
struct AccessClassRef {
  AccessClassKey key;
  uint32_t id = 0;       // the location's classes are numbered from 0, in order of first access
  bool created = false;  // this access is the class's first
};

class AccessClassIds {
 public:
  explicit AccessClassIds(size_t locations) : locations_(locations, Table(8)) {}

  // The class of access `e` to location `l` (described by `info`), made holding `lockset`.
  AccessClassRef Of(LocationId l, const Event& e, uint32_t lockset, const LocationInfo& info) {
    Table& table = locations_[l];
    AccessClassRef c{AccessClassKey::Of(e, lockset, info)};
    c.id = table.FindOrInsert(c.key, static_cast<uint32_t>(table.size()), &c.created);
    return c;
  }

  // No later access touches location `l`: its table goes.
  void Seal(LocationId l) { locations_[l] = Table(1); }

 private:
  struct KeyHash {
    size_t operator()(const AccessClassKey& key) const { return key.Hash(); }
  };
  // The keys in the table's slots: a lookup is one cache miss, not one for the slot and one for
  // the key.
  using Table = FlatHashMap<AccessClassKey, uint32_t, KeyHash>;
  std::vector<Table> locations_;
};

}  // namespace pecan
