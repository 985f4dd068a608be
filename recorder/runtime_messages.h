// The runtime's one way to talk to the user: single "pecan-rt: ..." lines on stderr, written
// with write(2) so it works in signal handlers and before the C library's stdio is usable.
#pragma once

namespace pecan::rt {

// Prints "pecan-rt: <a><b><c>\n" unless PECAN_QUIET=1 silenced the runtime.
void RuntimeMessage(const char* a, const char* b = "", const char* c = "");
void SetRuntimeMessagesQuiet(bool quiet);

}  // namespace pecan::rt
