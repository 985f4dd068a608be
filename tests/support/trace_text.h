// One-line-per-event text of a small trace, for test failure messages (INFO/CAPTURE): shows
// index, thread, kind, target name and flags, so a failing random trace can be read at a glance.
#pragma once

#include <string>
#include <vector>

#include "trace_format/trace.h"

namespace pecan::test {

// "  3: T1 write x" ... one line per event, targets named from the trace's name table.
std::string DescribeTrace(const Trace& trace);
// "T1 write x" for one event.
std::string DescribeEvent(const Trace& trace, EventIndex i);
// "[3 5 7]"
std::string DescribeIndices(const std::vector<EventIndex>& indices);

}  // namespace pecan::test
