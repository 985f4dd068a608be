// --before-each CMD of hunt, replay and triage: a shell command that restores the program's
// starting state (removes the files it creates, say) before the recording and before each
// replay, so every run starts from the same state. Its failure stops the run it precedes.
#pragma once

#include <string>

#include "trace_format/error.h"
#include "workflow/child_process.h"

namespace pecan::workflow {

// Runs `command` with /bin/sh -c (output to ours, or to `log_path` when given); throws
// PecanError("<who>: --before-each ...") when it does not exit 0. Does nothing for "".
void RunBeforeEach(const std::string& command, const std::string& who,
                   const std::string& log_path = "");

}  // namespace pecan::workflow
