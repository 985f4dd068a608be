// Test helper: a trace from STD text written inline, so a test reads like the paper's figure.
#pragma once

#include <sstream>
#include <string>

#include "trace_format/std_format.h"

namespace pecan::test {

inline Trace StdTrace(const std::string& text, const std::string& name = "inline.std") {
  std::istringstream in(text);
  return ImportStd(in, name);
}

}  // namespace pecan::test
