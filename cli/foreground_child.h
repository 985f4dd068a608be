// A program started in pecan's own process group, so the terminal's Ctrl-C and Ctrl-\ reach it
// (and it may read the terminal) while pecan ignores them until the program has ended.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace pecan::cli {

class ForegroundChild {
 public:
  // Starts `executable` (looked up in PATH unless it holds a slash) with `argv` and
  // `environment`, with SIGINT and SIGQUIT at their defaults in the child and ignored here.
  // Throws PecanError("<context>cannot run <executable>: <reason>").
  ForegroundChild(const std::string& executable, std::vector<std::string> argv,
                  std::vector<std::string> environment, const std::string& context);
  // Gives SIGINT and SIGQUIT their handling from before back (the caller has waited for pid()).
  ~ForegroundChild();
  ForegroundChild(const ForegroundChild&) = delete;
  ForegroundChild& operator=(const ForegroundChild&) = delete;

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
  struct sigaction old_int_ {};
  struct sigaction old_quit_ {};
};

}  // namespace pecan::cli
