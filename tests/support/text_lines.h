// The lines of a text (command output, a dump), without their line breaks: what tests compare.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace pecan::test {

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace pecan::test
