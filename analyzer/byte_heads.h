// ByteHeads: a value per byte of one location's range (the race search's first small class
// starting at each byte), kNil where there is none. Kept in a FlatHashMap while few bytes have
// one, and in an array over the range once a sixteenth of them do: a buffer that threads walk a
// byte at a time has a value at nearly every byte, and a query of the few bytes before one
// (ClassOf's probes) then reads one cache line instead of a slot per byte (in the table, mostly a
// cache miss each), at 4 bytes a byte instead of 32 to 64 per value. The array comes at a
// sixteenth, not later, because a buffer is walked through its first part while the table holds
// it: at a quarter, pcompress 1 MiB took 7% longer; at 1/32 and 1/64 it took 1.5% and 4% less
// than at 1/16, but the array could then take 4 and 8 times the table's memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analyzer/flat_hash_map.h"

namespace pecan {

class ByteHeads {
 public:
  static constexpr uint32_t kNil = ~0u;
  // The values are in an array once one byte in kArrayAt has one.
  static constexpr uint64_t kArrayAt = 16;

  // For the bytes [begin, end).
  ByteHeads(uint64_t begin, uint64_t end) : begin_(begin), span_(end - begin) {}

  // The value at byte `at`, or kNil.
  uint32_t At(uint64_t at) const {
    if (at < begin_ || at - begin_ >= span_) return kNil;
    if (dense_.empty()) {
      const uint32_t* found = sparse_.Find(at);
      return found ? *found : kNil;
    }
    return dense_[at - begin_];
  }

  // Calls f(value) for each byte of [from, end) with a value, in no order: by a look at each
  // byte, or, where the bytes outnumber the table's values (a block copy over a big buffer: a
  // class of 3 GiB took minutes to look at each of its bytes), by a walk of the table.
  template <typename F>
  void ForEachIn(uint64_t from, uint64_t end, const F& f) const {
    from = std::max(from, begin_);
    end = std::min(end, begin_ + span_);
    if (from >= end) return;
    if (!dense_.empty()) {
      for (uint64_t at = from; at < end; ++at)
        if (dense_[at - begin_] != kNil) f(dense_[at - begin_]);
      return;
    }
    if (end - from > sparse_.size()) {
      sparse_.ForEach([&](uint64_t byte, uint32_t value) {
        if (byte >= from && byte < end) f(value);
      });
      return;
    }
    for (uint64_t at = from; at < end; ++at)
      if (const uint32_t* found = sparse_.Find(at)) f(*found);
  }

  // Whether the values are in the array (no longer in the table).
  bool IsArray() const { return !dense_.empty(); }

  // The value at byte `at` (inside the range), to set; kNil if there was none.
  uint32_t& Slot(uint64_t at) {
    if (dense_.empty()) {
      bool inserted = false;
      uint32_t& value = sparse_.FindOrInsert(at, kNil, &inserted);
      if (!inserted || (sparse_.size() + 1) * kArrayAt < span_) return value;
      // A sixteenth of the bytes have a value: the array (64 bytes a value) takes at most twice
      // the table's memory (a slot of 16 bytes, the table at most half full: 32 or more).
      dense_.assign(span_, kNil);
      sparse_.ForEach([&](uint64_t byte, uint32_t v) { dense_[byte - begin_] = v; });
      sparse_ = FlatHashMap<uint64_t, uint32_t, U64Hash>(1);
    }
    return dense_[at - begin_];
  }

 private:
  uint64_t begin_;
  uint64_t span_;
  FlatHashMap<uint64_t, uint32_t, U64Hash> sparse_ = FlatHashMap<uint64_t, uint32_t, U64Hash>(16);
  std::vector<uint32_t> dense_;  // once dense: by byte from begin_
};

}  // namespace pecan
