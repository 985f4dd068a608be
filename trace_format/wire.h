// The protobuf wire format at the level the chunk codec writes and reads it by hand: varints,
// zig-zag, tags. Readers are bounds-checked: they never look past the end they are given.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pecan::wire {

// Wire types (the low 3 bits of a tag).
inline constexpr uint8_t kVarint = 0;
inline constexpr uint8_t kFixed64 = 1;
inline constexpr uint8_t kLengthDelimited = 2;
inline constexpr uint8_t kFixed32 = 5;

// A 64-bit value takes at most 10 bytes; protobuf refuses a longer varint.
inline constexpr size_t kMaxVarintBytes = 10;

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (0 - (v & 1)));
}

// Writes `v` as a protobuf varint (7 bits a byte, low bits first) and moves `out` past it.
__attribute__((always_inline)) inline void PutVarint(uint8_t*& out, uint64_t v) {
  uint8_t* p = out;
  while (v >= 0x80) {
    *p = static_cast<uint8_t>(v | 0x80);
    ++p;
    v >>= 7;
  }
  *p = static_cast<uint8_t>(v);
  out = p + 1;
}

inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// The part of GetVarint for varints of more than one byte.
inline bool GetLongVarint(const uint8_t*& p, const uint8_t* end, uint64_t& v) {
  uint64_t value = 0;
  const uint8_t* q = p;
  for (unsigned shift = 0; shift < 7 * kMaxVarintBytes; shift += 7) {
    if (q == end) return false;
    const uint64_t byte = *q++;
    value |= (byte & 0x7f) << shift;  // the 10th byte's bits past 64 are dropped, as protobuf does
    if (byte < 0x80) {
      v = value;
      p = q;
      return true;
    }
  }
  return false;
}

// Reads the varint at `p` into `v` and moves `p` past it. False, leaving `p` as it was, when the
// varint runs into `end` or is longer than kMaxVarintBytes.
__attribute__((always_inline)) inline bool GetVarint(const uint8_t*& p, const uint8_t* end,
                                                     uint64_t& v) {
  if (p != end && *p < 0x80) [[likely]] {
    v = *p;
    ++p;
    return true;
  }
  return GetLongVarint(p, end, v);
}

// The number of varints in the packed span [p, end): the bytes that end one (high bit clear). A
// span whose last byte has its high bit set ends inside a varint.
inline size_t CountVarints(const uint8_t* p, const uint8_t* end) {
  // Blocks of a fixed size with a byte-wide count, so that GCC's -O2 vectorizes the inner loop.
  constexpr ptrdiff_t kBlock = 128;
  size_t n = 0;
  for (; end - p >= kBlock; p += kBlock) {
    uint8_t ends = 0;
    for (ptrdiff_t i = 0; i < kBlock; ++i) ends += p[i] < 0x80;
    n += ends;
  }
  for (; p != end; ++p) n += *p < 0x80;
  return n;
}

// The greatest of the `n` bytes at `p` (0 for none).
inline uint8_t MaxByte(const uint8_t* p, size_t n) {
  // Blocks of a fixed size, as in CountVarints, so that GCC's -O2 vectorizes the inner loop.
  constexpr size_t kBlock = 128;
  uint8_t max = 0;
  size_t i = 0;
  for (; n - i >= kBlock; i += kBlock) {
    uint8_t block_max = 0;
    for (size_t k = 0; k < kBlock; ++k) block_max = p[i + k] > block_max ? p[i + k] : block_max;
    max = block_max > max ? block_max : max;
  }
  for (; i < n; ++i) max = p[i] > max ? p[i] : max;
  return max;
}

}  // namespace pecan::wire
