#include "workflow/child_process.h"

namespace pecan::workflow {

ChildResult RunChild(const ChildSpec& spec) {
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

}  // namespace pecan::workflow
