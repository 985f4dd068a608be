// Trace helpers that need no file I/O.
#include "trace_format/trace.h"

namespace pecan {

void Trace::reserve(size_t n) {
  thread.reserve(n);
  kind.reserve(n);
  flags.reserve(n);
  size.reserve(n);
  addr.reserve(n);
  site.reserve(n);
}

}  // namespace pecan
