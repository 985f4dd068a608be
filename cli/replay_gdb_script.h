// `pecan replay --gdb`: the gdb command file that stops the program where the anomaly forms and
// says which thread is stopped at which access and what runs on `continue`.
#pragma once

#include <string>
#include <vector>

#include "cli/replay_output.h"

namespace pecan::cli {

// Writes the script next to `verdict_path` and returns its path. `in_run_order` are the
// anomaly's events in the order the replay runs them; `verdict_path` is the runtime's verdict
// file, which the script reads at the breakpoint to learn whether the last event's thread is
// already stopped at it.
std::string WriteGdbScript(const std::vector<AnomalyEventText>& in_run_order,
                           const std::string& verdict_path);

}  // namespace pecan::cli
