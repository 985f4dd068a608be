// RunBounded: posix_spawnp with SIGINT/SIGQUIT ignored in pecan and defaulted in the program, a
// polling waitpid that kills the program at the bound; plus the verdict file's path and reader.
#include "cli/replay_program_run.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/program_lookup.h"
#include "trace_format/error.h"

namespace pecan::cli {
ChildEnd RunBounded(const std::string& executable, std::vector<std::string> argv,
                    std::vector<std::string> environment, double bound_seconds) {
  std::vector<char*> argv_c = CStrings(argv);
  std::vector<char*> environment_c = CStrings(environment);
  struct sigaction ignore {};
  struct sigaction old_int {};
  struct sigaction old_quit {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);  // Ctrl-C is for the program; we report after it
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  std::cout.flush();
  std::cerr.flush();

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int error = posix_spawnp(&pid, executable.c_str(), nullptr, &attributes, argv_c.data(),
                           environment_c.data());
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    throw PecanError("replay: cannot run " + executable + ": " + std::strerror(error));
  }
  ChildEnd end;
  int status = 0;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    pid_t done = ::waitpid(pid, &status, bound_seconds > 0 ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (bound_seconds <= 0) continue;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > bound_seconds && !end.timed_out) {
      end.timed_out = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(20)) pause *= 2;
  }
  end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (WIFEXITED(status)) {
    end.exited = true;
    end.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
  }
  return end;
}

std::string TemporaryVerdictPath() {
  std::string pattern = (std::filesystem::temp_directory_path() / "pecan-verdict-XXXXXX").string();
  int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    throw PecanError("replay: cannot create a temporary file: " +
                     std::string(std::strerror(errno)));
  ::close(fd);
  ::unlink(pattern.c_str());  // the runtime creates it; absence means "no verdict written"
  return pattern;
}

std::optional<proto::Verdict> ReadVerdict(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  proto::Verdict verdict;
  if (!verdict.ParseFromString(bytes.str())) return std::nullopt;
  return verdict;
}

}  // namespace pecan::cli
