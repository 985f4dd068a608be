// XXH64, the 64-bit xxHash: record checksums, the footer's whole-trace checksum and the
// content hash of trace files. Bit-for-bit the reference algorithm (tested against it).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pecan {

uint64_t Xxh64(const void* data, size_t length, uint64_t seed = 0);

// Incremental XXH64 over data fed in pieces; Digest() equals Xxh64 of the concatenation.
class Xxh64Stream {
 public:
  explicit Xxh64Stream(uint64_t seed = 0);
  void Update(const void* data, size_t length);
  uint64_t Digest() const;

 private:
  uint64_t total_ = 0;
  uint64_t lanes_[4];
  unsigned char buffer_[32];
  size_t buffered_ = 0;
  uint64_t seed_;
};

}  // namespace pecan
