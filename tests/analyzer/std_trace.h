// Parses an STD text trace written inline in a test (one event per line), so analyzer tests
// read like the paper's examples. Event i of the trace is the i-th non-comment line.
#pragma once

#include <sstream>
#include <string>

#include "trace_format/std_format.h"

namespace pecan::testing {

inline Trace StdTrace(const std::string& text) {
  std::istringstream in(text);
  return ImportStd(in, "test.std");
}

}  // namespace pecan::testing
