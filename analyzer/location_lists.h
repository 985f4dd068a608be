// LocationLists<T>: a list of T per location, for a scope that ends often (a thread's open region
// in the streaming atomicity search): Clear() is O(1) and the lists' storage is kept for the
// next scope, so a region costs no allocation once the lists have grown. A node-based map of
// vectors allocated and freed a node and a vector per location in every region.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/access_locations.h"

namespace pecan {

template <typename T>
class LocationLists {
 public:
  // The list of location `l`, or nullptr (none since the last Clear).
  std::vector<T>* Find(LocationId l) {
    const size_t mask = slots_.size() - 1;
    for (size_t at = Hash(l) & mask;; at = (at + 1) & mask) {
      const Slot& slot = slots_[at];
      if (slot.generation != generation_) return nullptr;
      if (slot.location == l) return &lists_[slot.list];
    }
  }
  const std::vector<T>* Find(LocationId l) const {
    return const_cast<LocationLists*>(this)->Find(l);
  }

  // The list of location `l`, empty if it had none since the last Clear.
  std::vector<T>& Get(LocationId l) {
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    const size_t mask = slots_.size() - 1;
    for (size_t at = Hash(l) & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (slot.generation != generation_) {
        if (used_ == lists_.size()) lists_.emplace_back();
        lists_[used_].clear();
        slot = Slot{l, used_++, generation_};
        return lists_[slot.list];
      }
      if (slot.location == l) return lists_[slot.list];
    }
  }

  // Every list is empty again. Storage grown past kKept lists (a long scope) is given back.
  void Clear() {
    if (used_ == 0) return;
    if (lists_.size() > kKept) *this = LocationLists();
    used_ = 0;
    if (++generation_ == 0) {  // wrapped: no slot may keep a stale generation that matches
      for (Slot& slot : slots_) slot.generation = 0;
      generation_ = 1;
    }
  }

 private:
  static constexpr size_t kKept = 64;
  struct Slot {
    LocationId location = 0;
    uint32_t list = 0;
    uint32_t generation = 0;  // the slot is in use when it is the current one
  };

  static size_t Hash(LocationId l) { return (uint64_t{l} * 0x9E3779B97F4A7C15ull) >> 32; }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.generation != generation_) continue;
      size_t at = Hash(slot.location) & mask;
      while (slots_[at].generation == generation_) at = (at + 1) & mask;
      slots_[at] = slot;
    }
  }

  std::vector<Slot> slots_ = std::vector<Slot>(16);
  std::vector<std::vector<T>> lists_;  // the first used_ are this scope's
  uint32_t used_ = 0;
  uint32_t generation_ = 1;
};

}  // namespace pecan
