// Trace helpers that need no file I/O.
#include "trace_format/trace.h"

namespace pecan {

void Trace::push_back(const Event& e) {
  if (e.repeats_before != 0 && repeats_before.empty()) repeats_before.assign(size_events(), 0);
  if (!repeats_before.empty()) repeats_before.push_back(e.repeats_before);
  thread.push_back(e.thread);
  kind.push_back(e.kind);
  flags.push_back(e.flags);
  size.push_back(e.size);
  addr.push_back(e.addr);
  site.push_back(e.site);
}

void Trace::AppendRepeats(const std::vector<uint16_t>& repeats, size_t count) {
  if (repeats.empty()) {
    if (!repeats_before.empty()) repeats_before.resize(repeats_before.size() + count, 0);
    return;
  }
  // The first events with repeats: the ones before get explicit zeros.
  if (repeats_before.empty()) repeats_before.assign(size_events(), 0);
  repeats_before.insert(repeats_before.end(), repeats.begin(), repeats.end());
}

void Trace::reserve(size_t n) {
  thread.reserve(n);
  kind.reserve(n);
  flags.reserve(n);
  size.reserve(n);
  addr.reserve(n);
  site.reserve(n);
}

}  // namespace pecan
