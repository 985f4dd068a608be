// What a schedule must show for a finding to count as hatched: the finding's events in the
// pattern's order and, for patterns declared `adjacent` (data races among them), back to back.
#pragma once

#include <string>
#include <vector>

#include "analyzer/finding.h"
#include "trace_format/trace.h"

namespace pecan {

struct PatternOrder {
  std::vector<EventIndex> events;  // in the order the schedule must run them
  bool adjacent = false;           // each event must immediately follow the one before it
};

// The demand of a finding: its events as listed (the pattern's order), and adjacency when the
// finding's pattern declares it (Finding::adjacent).
PatternOrder PatternOrderOf(const Finding& finding);

// For messages: "T1" (or the thread's recorded name) and "event 12 (T1 write x)".
std::string DescribeThread(const Trace& trace, ThreadId thread);
std::string DescribeStep(const Trace& trace, EventIndex event);

}  // namespace pecan
