// Fuzz target: the pattern-file parser (analyzer/pattern_parser.cpp). Bad input must end in
// PecanError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyzer/pattern.h"
#include "trace_format/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    pecan::ParsePatterns(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.pat");
  } catch (const pecan::PecanError&) {
  }
  return 0;
}
