// Readable dumps of small traces for test failure messages.
#include "tests/support/trace_text.h"

#include <sstream>

namespace pecan::test {
namespace {

std::string TargetName(const Trace& trace, EventIndex i) {
  EventKind kind = trace.kind[i];
  uint64_t address = trace.addr[i];
  if (kind == EventKind::kFork || kind == EventKind::kJoin) return "T" + std::to_string(address);
  for (const AddressName& name : trace.names)
    if (name.address == address) return name.name;
  if (address == 0) return "";
  std::ostringstream hex;
  hex << "0x" << std::hex << address;
  return hex.str();
}

}  // namespace

std::string DescribeEvent(const Trace& trace, EventIndex i) {
  std::ostringstream out;
  out << "T" << trace.thread[i] << " " << EventKindName(trace.kind[i]);
  std::string target = TargetName(trace, i);
  if (!target.empty()) out << " " << target;
  EventKind kind = trace.kind[i];
  if (IsAtomicAccess(kind))
    out << " " << MemoryOrderName(static_cast<MemoryOrder>(trace.flags[i]));
  else if (kind == EventKind::kWait && (trace.flags[i] & kWaitTimedOutFlag))
    out << " timed-out";
  return out.str();
}

std::string DescribeTrace(const Trace& trace) {
  std::ostringstream out;
  for (EventIndex i = 0; i < trace.size_events(); ++i)
    out << "  " << i << ": " << DescribeEvent(trace, i) << "\n";
  return out.str();
}

std::string DescribeIndices(const std::vector<EventIndex>& indices) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < indices.size(); ++i) out << (i ? " " : "") << indices[i];
  out << "]";
  return out.str();
}

}  // namespace pecan::test
