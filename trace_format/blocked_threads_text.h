// The wait-for state of a run the recorder ended because every thread was blocked, in words:
// "T1 waits for mutex `b` (abba.c:13) held by T2 (taken at abba.c:21); T2 waits for ...".
#pragma once

#include <string>

#include "trace_format/trace.h"
#include "trace_format/trace_dump.h"

namespace pecan {

// One clause per blocked thread, joined by "; " ("" when the trace has none). `site` words a
// site (the caller picks "abba.c:13" or "abba.c:13 (forward)"); `name_address` names a static
// object (`b`), else the object is shown by its address. Either may be empty: then sites are
// module+offset and objects addresses.
std::string DescribeBlockedThreads(const Trace& tables, const SiteDescriber& site,
                                   const AddressNamer& name_address);

// "mutex", "read lock", ... as the text and `pecan dump --format json` name a wait.
const char* BlockedOnName(BlockedOn on);

}  // namespace pecan
