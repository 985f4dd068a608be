// The name of a signal as users know it from kill(1) and gdb: "SIGSEGV", or "signal 77" for a
// number the C library has no abbreviation for. Used wherever pecan says how a program ended.
#pragma once

#include <string>

namespace pecan {

std::string SignalName(int signal_number);

}  // namespace pecan
