// RunBounded: the program as a ForegroundChild, killed at the bound or when pecan is asked to
// end; plus the replay's scratch directory and the verdict file's reader.
#include "cli/replay_program_run.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "trace_format/error.h"
#include "workflow/foreground_child.h"

namespace pecan::cli {

using workflow::ForegroundChild;
using workflow::SupervisedEnd;

ChildEnd RunBounded(const std::string& executable, std::vector<std::string> argv,
                    std::vector<std::string> environment, double bound_seconds) {
  ForegroundChild child(executable, std::move(argv), std::move(environment), "replay: ");
  const SupervisedEnd ended = child.Wait(bound_seconds);
  ChildEnd end;
  end.timed_out = ended.timed_out;
  end.seconds = ended.seconds;
  if (WIFEXITED(ended.status)) {
    end.exited = true;
    end.exit_status = WEXITSTATUS(ended.status);
  } else if (WIFSIGNALED(ended.status)) {
    end.signal = WTERMSIG(ended.status);
  }
  return end;
}

ReplayScratch::ReplayScratch() {
  std::string pattern = (std::filesystem::temp_directory_path() / "pecan-replay-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw PecanError("replay: cannot create a temporary directory in " +
                     std::filesystem::temp_directory_path().string() + ": " +
                     std::string(std::strerror(errno)));
  directory_ = pattern;
}

void ReplayScratch::Remove() {
  if (directory_.empty()) return;
  std::error_code ignored;  // nothing to do about a file that will not go
  std::filesystem::remove_all(directory_, ignored);
  directory_.clear();
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
