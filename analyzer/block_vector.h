// BlockVector: a growing array in blocks that double from kFirst elements up to kMax, then stay at
// kMax. Growing never copies the elements nor holds an old and a new array at once (a vector
// of millions of records, doubling, holds three times their size for a moment), and leaves at
// most one block's room unused: up to half the elements of a small array, kMax of a big one.
// Elements stay where they are while the array grows.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pecan {

template <typename T, uint32_t kFirstShift = 3, uint32_t kMaxShift = 12>
class BlockVector {
 public:
  static_assert(kFirstShift <= kMaxShift);

  size_t size() const { return size_; }

  T& operator[](size_t i) { return At(i); }
  const T& operator[](size_t i) const { return const_cast<BlockVector*>(this)->At(i); }

  void push_back(const T& value) {
    if (size_ == capacity_) {
      const size_t block = size_ < kFirst ? kFirst : size_ < kMax ? size_ : kMax;
      blocks_.push_back(std::make_unique<T[]>(block));
      capacity_ += block;
    }
    At(size_++) = value;
  }

  T& back() { return At(size_ - 1); }

 private:
  static constexpr size_t kFirst = size_t{1} << kFirstShift;
  static constexpr size_t kMax = size_t{1} << kMaxShift;
  // Blocks 0..kDoubling-1 double from kFirst (block 0 and 1 both hold kFirst) to kMax / 2
  // elements; block kDoubling and each after it holds kMax.
  static constexpr size_t kDoubling = kMaxShift - kFirstShift + 1;

  T& At(size_t i) {
    if (i < kMax) {
      const auto b = static_cast<size_t>(std::bit_width(i >> kFirstShift));
      return blocks_[b][b == 0 ? i : i - (kFirst << (b - 1))];
    }
    return blocks_[kDoubling + (i >> kMaxShift) - 1][i & (kMax - 1)];
  }

  std::vector<std::unique_ptr<T[]>> blocks_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace pecan
