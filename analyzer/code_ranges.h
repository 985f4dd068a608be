// The code of a function or of a range of source lines, as address ranges of its module file
// (file addresses: what a trace site's offset is). For user-defined atomic sections
// (`pecan fuzz --strategy noise --atomic FILE`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pecan {

struct CodeRange {
  uint64_t begin = 0;
  uint64_t end = 0;  // exclusive
};

// The code of every function named `function` in the ELF file `module_path` (a C name, or a C++
// name with or without its parameter list: "ns::Account::deposit"). Empty when there is none.
// Throws PecanError when the file cannot be read.
std::vector<CodeRange> FunctionCode(const std::string& module_path, const std::string& function);

// The code the line table gives for lines [first, last] of the source file whose path ends with
// `file` (a base name or a longer suffix). Empty when there is none (or no debug information).
std::vector<CodeRange> LineCode(const std::string& module_path, const std::string& file, int first,
                                int last);

}  // namespace pecan
