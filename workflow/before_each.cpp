#include "workflow/before_each.h"

namespace pecan::workflow {

void RunBeforeEach(const std::string& command, const std::string& who,
                   const std::string& log_path) {
  if (command.empty()) return;
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  spec.timeout_seconds = 300;
  const ChildResult result = RunChild(spec);
  if (result.exited && result.exit_status == 0) return;
  throw PecanError(who + ": --before-each '" + command + "' " +
                   (result.timed_out ? std::string("did not end within 300 s")
                    : result.exited  ? "exited with status " + std::to_string(result.exit_status)
                                     : "was killed by signal " + std::to_string(result.signal)));
}

}  // namespace pecan::workflow
