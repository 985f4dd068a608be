// Running the program for `pecan replay`: in pecan's process group with the replay environment,
// bounded in time, and the runtime's verdict file read back afterwards from a scratch directory
// of the replay's own.
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
// Throws PecanError when it cannot be started. When pecan was asked to end meanwhile, the caller
// cleans up and then ends it (workflow::EndIfTerminationRequested).
ChildEnd RunBounded(const std::string& executable, std::vector<std::string> argv,
                    std::vector<std::string> environment, double bound_seconds);

// A directory of one replay's own in the temporary directory, for the runtime's verdict (and its
// partial writes of it) and the gdb script; removed with all it holds by Remove() or at the end
// of its scope, so that neither a replay nor a Ctrl-C leaves files behind.
class ReplayScratch {
 public:
  ReplayScratch();  // throws PecanError when it cannot be created
  ~ReplayScratch() { Remove(); }
  ReplayScratch(const ReplayScratch&) = delete;
  ReplayScratch& operator=(const ReplayScratch&) = delete;

  // Where the runtime writes its verdict; the file's absence means "no verdict written".
  std::string VerdictPath() const { return directory_ + "/verdict"; }
  void Remove();

 private:
  std::string directory_;
};

// The runtime's verdict (pecan.proto.Verdict) at `path`; nullopt when missing or unreadable.
std::optional<proto::Verdict> ReadVerdict(const std::string& path);

}  // namespace pecan::cli
