// ByteKeyLines: the first pass's current key of each byte a program accessed one byte at a time,
// in lines of 64 bytes, a 4-byte slot per byte. A program that walks byte buffers has a key per
// byte of them, millions; in a hash table of (address, size) they took 8-byte slots at 3/5-3/4
// load and a probe that compares the key's range, here 4 bytes and an index.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "analyzer/block_vector.h"
#include "analyzer/flat_hash_map.h"

namespace pecan {

class ByteKeyLines {
 public:
  static constexpr uint32_t kNoKey = ~0u;

  // The slot of byte `addr`: kNoKey until the caller names its key. It stays where it is while
  // other slots are added.
  uint32_t& Slot(uint64_t addr) {
    const uint64_t line = addr >> kLineBits;
    Cached& cached = cache_[line & (kCached - 1)];
    if (cached.line != line || cached.keys == nullptr) {
      bool inserted = false;
      uint32_t& at = index_.FindOrInsert(line, 0, &inserted);
      if (inserted) {
        at = static_cast<uint32_t>(lines_.size());
        lines_.push_back(Line{});
      }
      cached = Cached{line, lines_[at].keys.data()};
    }
    return cached.keys[addr & (kLineBytes - 1)];
  }

  // The lines with a slot.
  size_t lines() const { return lines_.size(); }

 private:
  static constexpr int kLineBits = 6;
  static constexpr uint64_t kLineBytes = uint64_t{1} << kLineBits;
  static constexpr size_t kCached = 16;  // lines recently used, by their low bits
  struct Line {
    Line() { keys.fill(kNoKey); }
    std::array<uint32_t, kLineBytes> keys;
  };
  struct Cached {
    uint64_t line = 0;
    uint32_t* keys = nullptr;
  };

  FlatHashMap<uint64_t, uint32_t, U64Hash> index_;  // line -> its number in lines_
  BlockVector<Line, 3, 12> lines_;                  // blocks of up to 4096 lines (1 MiB)
  std::array<Cached, kCached> cache_{};
};

}  // namespace pecan
