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

namespace pecan::cli {

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
inline ChildResult RunChild(const ChildSpec& spec) {
  if (spec.argv.empty()) throw PecanError("workflow: no program to run");
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> envp = MergedEnvironment(spec.environment, spec.unset_environment);
  std::vector<char*> argv_c = CStrings(argv);
  std::vector<char*> envp_c = CStrings(envp);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  constexpr int kFlags = O_WRONLY | O_CREAT | O_TRUNC;  // no O_CLOEXEC: these become fds 1 and 2
  if (!spec.stdout_path.empty())
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, spec.stdout_path.c_str(), kFlags,
                                     0644);
  if (!spec.stderr_path.empty()) {
    if (spec.stderr_path == spec.stdout_path)
      posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    else
      posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, spec.stderr_path.c_str(), kFlags,
                                       0644);
  }
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group, so the bound (or pecan's end) ends the child together with whatever
  // it started.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);

  SupervisedChild supervised(ChildGroup::kOwn);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int error = posix_spawnp(&pid, argv_c[0], &actions, &attributes, argv_c.data(), envp_c.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) throw PecanError(spec.argv[0] + ": cannot start: " + std::strerror(error));
  supervised.Started(pid);

  const SupervisedEnd end = supervised.Wait(start, spec.timeout_seconds);
  // Asked to end while it ran: it is gone now; pecan ends too instead of starting more.
  EndIfTerminationRequested();
  ChildResult result;
  result.timed_out = end.timed_out;
  result.seconds = end.seconds;
  const int status = end.status;
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace pecan::cli
