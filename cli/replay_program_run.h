// Running the program for `pecan replay`: in pecan's process group with the replay environment,
// bounded in time, and the runtime's verdict file read back afterwards.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace pecan::cli {

// How the program's process ended.
struct ChildEnd {
  bool exited = false;
  int exit_status = 0;     // when exited
  int signal = 0;          // when killed by a signal
  bool timed_out = false;  // killed by us at the bound
  double seconds = 0;
};

// Runs argv (argv[0] looked up in PATH) with the environment, in our process group (the terminal
// stays the program's; Ctrl-C goes to it), and kills it when `bound_seconds` (> 0) passed.
// Throws PecanError when it cannot be started.
ChildEnd RunBounded(const std::string& executable, std::vector<std::string> argv,
                    std::vector<std::string> environment, double bound_seconds);

// A fresh path in the temporary directory that does not exist yet (the runtime creates the
// file; its absence means "no verdict written").
std::string TemporaryVerdictPath();

// The runtime's verdict (pecan.proto.Verdict) at `path`; nullopt when missing or unreadable.
std::optional<proto::Verdict> ReadVerdict(const std::string& path);

}  // namespace pecan::cli
