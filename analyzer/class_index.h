// ClassIndex: one location's access classes by key, for a search that numbers its own classes in
// order of first access and keeps their keys in its records (the race search). Up to kListed
// classes are found by a walk of the records; more in a FlatIdTable (8-byte slots; AccessClassIds,
// which holds the keys itself, takes 32 bytes a slot), which holds only the classes a later
// access can be of.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>

#include "analyzer/flat_hash_map.h"

namespace pecan {

class ClassIndex {
 public:
  static constexpr uint32_t kNone = FlatIdTable::kNoId;
  static constexpr uint32_t kListed = 8;

  // The class, of the first `classes` records, whose key hashes to `hash` and for which
  // `same(id)` holds; kNone if none.
  template <typename Same>
  uint32_t Find(uint32_t classes, uint64_t hash, const Same& same) const {
    if (classes <= kListed) {
      for (uint32_t id = 0; id < classes; ++id)
        if (same(id)) return id;
      return kNone;
    }
    assert(table_);  // not cleared
    return table_->Find(hash, same);
  }

  // Record `id`, the last one made, is a class whose key hashes to `hash`; `hash_of(k)` gives
  // record k's, for the records before it when the walk gives way to a table. `keep`: a later
  // access may be of the class (else the table need not hold it: a walk sees it anyway).
  template <typename HashOf>
  void Add(uint32_t id, uint64_t hash, bool keep, const HashOf& hash_of) {
    if (id < kListed) return;
    if (id == kListed) {
      table_ = std::make_unique<FlatIdTable>(4 * kListed);
      for (uint32_t k = 0; k < id; ++k) table_->Add(hash_of(k), k);
    }
    if (keep) table_->Add(hash, id);
  }

  // Record `id`, whose key hashes to `hash`, goes in the table too, after Add of record kListed
  // or later (a record there already is found all the same; the first kListed are).
  void Keep(uint32_t id, uint64_t hash) {
    assert(table_);
    if (id >= kListed) table_->Add(hash, id);
  }

  // No later access: the table goes.
  void Clear() { table_.reset(); }

 private:
  std::unique_ptr<FlatIdTable> table_;  // past kListed classes
};

}  // namespace pecan
