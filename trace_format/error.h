// The one error type for user-facing failures: bad files, bad input, bad arguments.
// Its message is a single line that says what went wrong and where (file, byte offset, line).
#pragma once

#include <stdexcept>
#include <string>

namespace pecan {

class PecanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pecan
