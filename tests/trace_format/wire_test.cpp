// wire.h's block-wise helpers: MaxByte and CountVarints against a byte-at-a-time answer, at
// every length around their 128-byte blocks and with the deciding byte anywhere.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "trace_format/wire.h"

using namespace pecan;

TEST_CASE("MaxByte and CountVarints agree with a byte-at-a-time answer", "[wire]") {
  for (size_t n : {0, 1, 2, 127, 128, 129, 255, 256, 257, 300, 4096}) {
    for (size_t at = 0; at < std::max<size_t>(n, 1); at += 1 + n / 37) {
      std::vector<uint8_t> bytes(n);
      for (size_t k = 0; k < n; ++k) bytes[k] = static_cast<uint8_t>((k * 37) % 100);  // < 0x80
      if (n > 0) bytes[at] = 0xF3;  // the greatest, and not the end of a varint
      const uint8_t max = n == 0 ? 0 : *std::max_element(bytes.begin(), bytes.end());
      const auto ends = static_cast<size_t>(
          std::count_if(bytes.begin(), bytes.end(), [](uint8_t b) { return b < 0x80; }));
      INFO("length " << n << ", greatest byte at " << at);
      CHECK(wire::MaxByte(bytes.data(), n) == max);
      CHECK(wire::CountVarints(bytes.data(), bytes.data() + n) == ends);
    }
  }
}
