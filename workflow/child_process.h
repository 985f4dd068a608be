// Runs one child process for the workflow commands (hunt, triage): argv, extra environment,
// output redirected to files, and a wall-clock bound after which the child's process group dies
// (as it does when pecan is asked to end: child_supervision.h).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "trace_format/error.h"
#include "workflow/child_supervision.h"
#include "workflow/program_lookup.h"

namespace pecan::workflow {

struct ChildSpec {
  std::vector<std::string> argv;                   // argv[0] is looked up in PATH
  std::map<std::string, std::string> environment;  // set (overriding) in the child's environment
  std::vector<std::string> unset_environment;      // removed from the child's environment
  std::string stdout_path;                         // empty: inherit ours
  std::string stderr_path;                         // empty: inherit ours; may equal stdout_path
  double timeout_seconds = 0;                      // 0: no bound
};

struct ChildResult {
  bool exited = false;  // normal exit (exit status valid)
  int exit_status = 0;
  int signal = 0;          // the fatal signal, when not exited
  bool timed_out = false;  // killed by us at the bound
  double seconds = 0;
};

// Starts the child in its own process group and waits for it. When pecan is asked to end
// meanwhile, ends pecan once the child is gone instead of returning. Throws PecanError when it
// cannot be started (no such program, unwritable output file).
ChildResult RunChild(const ChildSpec& spec);

}  // namespace pecan::workflow
