#include "trace_format/signal_name.h"

#include <string.h>

namespace pecan {

std::string SignalName(int signal_number) {
  const char* abbreviation = sigabbrev_np(signal_number);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation
                                 : "signal " + std::to_string(signal_number);
}

}  // namespace pecan
