// RowSet: a set of 32-bit slots (ClassesSeen's: a key's place in its page, 8 bits, over a stream,
// 24 bits) in which the slots of 16 places in a row with one stream lie side by side. A thread
// that walks a buffer meets the keys of its bytes in a row (they were numbered as it first walked
// them) with one stream: their slots then share a cache line, where a hash of each slot spread
// them over the page's table (pcompress 1 MiB: 20-30 KB a page).
//
// A slot's place in a table of 64 slots or more: the block of 16 its row and stream hash to, at
// the place's offset in the row; then the same offset in the next few blocks (a row that takes a
// block is not pushed into the next one slot by slot); then the slots after the first, in order.
// Smaller tables hash each slot. The table grows by a quarter at three quarters full (FlatSet's
// sizes: the same memory).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analyzer/flat_hash_map.h"

namespace pecan {

class RowSet {
 public:
  static constexpr uint32_t kEmpty = ~0u;  // not a slot
  static constexpr uint32_t kPlaceBits = 8;
  static constexpr uint32_t kStreamBits = 32 - kPlaceBits;

  explicit RowSet(size_t initial_slots = 1) : slots_(std::max<size_t>(initial_slots, 1), kEmpty) {}

  // Adds `slot` (not kEmpty); false if it was in the set.
  bool Insert(uint32_t slot) {
    if (FullerThanThreeQuarters(used_, slots_.size())) Grow();
    uint32_t* at = Find(slots_, slot);
    if (*at == slot) return false;
    *at = slot;
    ++used_;
    return true;
  }

  size_t size() const { return used_; }

  // Calls f(slot) for each slot, in no order.
  template <typename F>
  void ForEach(const F& f) const {
    for (const uint32_t slot : slots_)
      if (slot != kEmpty) f(slot);
  }

 private:
  static constexpr size_t kRow = 16;
  static constexpr size_t kBlockedFrom = 64;  // slots: smaller tables hash each slot
  // Blocks of a column tried before the slots after the first: where most slots are of one place
  // in their rows (many streams at one field of the structs a thread first walked), its column
  // fills up, and a walk of it all would cost a probe per block.
  static constexpr size_t kColumnTries = 4;

  // Where `slot` is in `table`, or the empty slot it would take (the table is never full).
  static uint32_t* Find(std::vector<uint32_t>& table, uint32_t slot) {
    const size_t slots = table.size();
    uint32_t* const data = table.data();
    if (slots >= kBlockedFrom) {
      const uint32_t place = slot >> kStreamBits;
      const uint32_t stream = slot & ((uint32_t{1} << kStreamBits) - 1);
      const size_t blocks = slots / kRow;
      const uint64_t row = uint64_t{stream} << (kPlaceBits - 4) | place / kRow;
      const size_t home = ScaledSlot(MixHash(row) >> 32, 32, blocks);
      size_t block = home;
      for (size_t tried = 0; tried < kColumnTries; ++tried) {
        uint32_t* const at = data + block * kRow + place % kRow;
        if (*at == slot || *at == kEmpty) return at;
        block = block + 1 == blocks ? 0 : block + 1;
      }
      for (size_t at = home * kRow + place % kRow;; at = NextSlot(at, slots))
        if (data[at] == slot || data[at] == kEmpty) return data + at;
    }
    for (size_t at = ScaledSlot(MixHash(slot) >> 32, 32, slots);; at = NextSlot(at, slots))
      if (data[at] == slot || data[at] == kEmpty) return data + at;
  }

  void Grow() {
    std::vector<uint32_t> grown(GrownByAQuarter(slots_.size()), kEmpty);
    for (const uint32_t slot : slots_)
      if (slot != kEmpty) *Find(grown, slot) = slot;
    slots_.swap(grown);
  }

  std::vector<uint32_t> slots_;
  size_t used_ = 0;
};

}  // namespace pecan
