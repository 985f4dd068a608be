// A stuck run in words: the verdict's stuck threads (module + offset places, written by the
// runtime) symbolized with the modules' debug info, e.g. "T1 waits for lock `b` (abba.c:13)
// held by T2 (taken at abba.c:22)".
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace pecan::cli {

// "" when the verdict has no stuck threads. One clause per thread, joined by "; ".
std::string DescribeStuckThreads(const proto::Verdict& verdict);

// Where the program failed: the verdict's failure site, or for a failed assertion the file and
// line it names. Empty `file` and `text` when unknown.
struct FailureSite {
  std::string file;  // as the debug info has it (often absolute)
  uint32_t line = 0;
  std::string function;
  std::string text;  // "abba.c:13 (forward)", or "module+0x..." without debug info
};
FailureSite DescribeFailureSite(const proto::Verdict& verdict);

}  // namespace pecan::cli
