// Fatal signals end a recording too: the handler has the writer finish the trace (footer with
// the signal), then restores the default action so the process dies exactly as it would have.
#pragma once

namespace pecan::rt {

// Installs the handler for every signal whose default action ends the process and whose
// disposition is still the default (a program's own handlers are left alone).
void InstallFatalSignalHandlers();

}  // namespace pecan::rt
