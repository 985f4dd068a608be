// PatternOrderOf and the one-line event description shared by the generator's and the
// validator's messages.
#include "schedgen/pattern_order.h"

#include <algorithm>
#include <cstdio>

namespace pecan {

PatternOrder PatternOrderOf(const Finding& finding) {
  PatternOrder order;
  order.events = finding.events;
  order.adjacent = finding.adjacent;
  return order;
}

std::string DescribeThread(const Trace& trace, ThreadId thread) {
  if (thread < trace.threads.size() && !trace.threads[thread].name.empty()) {
    return trace.threads[thread].name;
  }
  return "T" + std::to_string(thread);
}

std::string DescribeStep(const Trace& trace, EventIndex event) {
  if (event >= trace.size_events()) return "event " + std::to_string(event) + " (not in the trace)";
  const uint64_t address = trace.addr[event];
  std::string target;
  // Messages only: a linear look-up in the name table is fine here.
  for (const AddressName& name : trace.names) {
    if (address >= name.address && address < name.address + std::max<uint64_t>(name.size, 1)) {
      target = name.name;
      if (address != name.address) target += "+" + std::to_string(address - name.address);
      break;
    }
  }
  if (target.empty()) {
    char hex[32];
    std::snprintf(hex, sizeof(hex), "0x%llx", static_cast<unsigned long long>(address));
    target = hex;
  }
  return "event " + std::to_string(event) + " (" + DescribeThread(trace, trace.thread[event]) +
         " " + std::string(EventKindName(trace.kind[event])) + " " + target + ")";
}

}  // namespace pecan
