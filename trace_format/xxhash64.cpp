// XXH64 (Yann Collet's xxHash, 64-bit variant), one-shot and incremental.
#include "trace_format/xxhash64.h"

#include <cstring>

namespace pecan {
namespace {

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

inline uint64_t Rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

inline uint64_t Read64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian hosts only (x86-64, aarch64), as everywhere in pecan
}

inline uint32_t Read32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint64_t Round(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = Rotl(acc, 31);
  return acc * kPrime1;
}

inline uint64_t MergeRound(uint64_t acc, uint64_t value) {
  acc ^= Round(0, value);
  return acc * kPrime1 + kPrime4;
}

void InitLanes(uint64_t lanes[4], uint64_t seed) {
  lanes[0] = seed + kPrime1 + kPrime2;
  lanes[1] = seed + kPrime2;
  lanes[2] = seed;
  lanes[3] = seed - kPrime1;
}

void ConsumeStripe(uint64_t lanes[4], const unsigned char* p) {
  lanes[0] = Round(lanes[0], Read64(p));
  lanes[1] = Round(lanes[1], Read64(p + 8));
  lanes[2] = Round(lanes[2], Read64(p + 16));
  lanes[3] = Round(lanes[3], Read64(p + 24));
}

uint64_t ConvergeLanes(const uint64_t lanes[4]) {
  uint64_t h = Rotl(lanes[0], 1) + Rotl(lanes[1], 7) + Rotl(lanes[2], 12) + Rotl(lanes[3], 18);
  for (int i = 0; i < 4; ++i) h = MergeRound(h, lanes[i]);
  return h;
}

uint64_t Finalize(uint64_t h, const unsigned char* p, size_t length) {
  while (length >= 8) {
    h ^= Round(0, Read64(p));
    h = Rotl(h, 27) * kPrime1 + kPrime4;
    p += 8;
    length -= 8;
  }
  if (length >= 4) {
    h ^= static_cast<uint64_t>(Read32(p)) * kPrime1;
    h = Rotl(h, 23) * kPrime2 + kPrime3;
    p += 4;
    length -= 4;
  }
  while (length > 0) {
    h ^= (*p) * kPrime5;
    h = Rotl(h, 11) * kPrime1;
    ++p;
    --length;
  }
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

}  // namespace

uint64_t Xxh64(const void* data, size_t length, uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h;
  size_t remaining = length;
  if (length >= 32) {
    uint64_t lanes[4];
    InitLanes(lanes, seed);
    while (remaining >= 32) {
      ConsumeStripe(lanes, p);
      p += 32;
      remaining -= 32;
    }
    h = ConvergeLanes(lanes);
  } else {
    h = seed + kPrime5;
  }
  h += length;
  return Finalize(h, p, remaining);
}

Xxh64Stream::Xxh64Stream(uint64_t seed) : seed_(seed) {
  InitLanes(lanes_, seed);
}

void Xxh64Stream::Update(const void* data, size_t length) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += length;
  if (buffered_ + length < 32) {
    if (length > 0) std::memcpy(buffer_ + buffered_, p, length);
    buffered_ += length;
    return;
  }
  if (buffered_ > 0) {
    size_t fill = 32 - buffered_;
    std::memcpy(buffer_ + buffered_, p, fill);
    ConsumeStripe(lanes_, buffer_);
    p += fill;
    length -= fill;
    buffered_ = 0;
  }
  while (length >= 32) {
    ConsumeStripe(lanes_, p);
    p += 32;
    length -= 32;
  }
  if (length > 0) std::memcpy(buffer_, p, length);
  buffered_ = length;
}

uint64_t Xxh64Stream::Digest() const {
  uint64_t h = total_ >= 32 ? ConvergeLanes(lanes_) : seed_ + kPrime5;
  h += total_;
  return Finalize(h, buffer_, buffered_);
}

}  // namespace pecan
