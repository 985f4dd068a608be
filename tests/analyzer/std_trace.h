// Parses an STD text trace written inline in a test (one event per line), so analyzer tests
// read like the paper's examples. Event i of the trace is the i-th non-comment line.
#pragma once

#include <sstream>
#include <string>

#include "trace_format/std_format.h"

namespace pecan::testing {

// PECAN (Huang & Zhang, ISSTA 2011) Figure 1's trace. Events: 0 fork, 1 w(y)@5, 2 w(y)@2,
// 3 r(x)@3, 4 r(y)@6, 5 w(x)@7.
inline constexpr const char* kPecanFigure1 = R"(T0|fork(T1)|1
T1|w(y)|5
T0|w(y)|2
T0|r(x)|3
T1|r(y)|6
T1|w(x)|7
)";

inline Trace StdTrace(const std::string& text) {
  std::istringstream in(text);
  return ImportStd(in, "test.std");
}

}  // namespace pecan::testing
