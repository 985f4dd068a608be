// RunBounded: the program as a ForegroundChild and a polling waitpid that kills it at the bound;
// plus the verdict file's path and reader.
#include "cli/replay_program_run.h"

#include <signal.h>
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

#include "cli/foreground_child.h"
#include "trace_format/error.h"

namespace pecan::cli {

ChildEnd RunBounded(const std::string& executable, std::vector<std::string> argv,
                    std::vector<std::string> environment, double bound_seconds) {
  const auto start = std::chrono::steady_clock::now();
  ForegroundChild child(executable, std::move(argv), std::move(environment), "replay: ");
  const pid_t pid = child.pid();
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
