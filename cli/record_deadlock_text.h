// What `pecan record` says of a run the runtime ended as deadlocked: the wait-for state the
// trace's footer holds, symbolized ("T1 waits for mutex `b` (abba.c:16) held by T2 ...").
#pragma once

#include <string>

namespace pecan::cli {

// "" when the trace holds no wait-for state (the run was not ended as deadlocked) or cannot be
// read (pecan record has said why already).
std::string DescribeRecordedDeadlock(const std::string& trace_path);

}  // namespace pecan::cli
