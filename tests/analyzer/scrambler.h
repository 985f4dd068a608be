// Scrambler: a small linear congruential generator for the analyzer's randomized tests, which
// gives the same numbers on every platform (std::uniform_int_distribution does not).
#pragma once

#include <cstdint>

namespace pecan {

class Scrambler {
 public:
  explicit Scrambler(uint64_t seed) : state_(seed) {}
  uint32_t operator()() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(state_ >> 33);
  }

 private:
  uint64_t state_;
};

}  // namespace pecan
