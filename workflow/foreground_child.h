// A program started in pecan's own process group, so the terminal's Ctrl-C and Ctrl-\ reach it
// (and it may read the terminal); pecan leaves those to it and waits until it has ended.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "workflow/child_supervision.h"

namespace pecan::workflow {

class ForegroundChild {
 public:
  // Starts `executable` (looked up in PATH unless it holds a slash) with `argv` and
  // `environment`, with SIGINT and SIGQUIT at their defaults in the child and SIGQUIT ignored
  // here. Throws PecanError("<context>cannot run <executable>: <reason>").
  ForegroundChild(const std::string& executable, std::vector<std::string> argv,
                  std::vector<std::string> environment, const std::string& context);
  // Gives SIGQUIT its handling from before back.
  ~ForegroundChild();
  ForegroundChild(const ForegroundChild&) = delete;
  ForegroundChild& operator=(const ForegroundChild&) = delete;

  pid_t pid() const { return pid_; }

  // Waits until it ends; when `bound_seconds` (> 0) have passed since it started, SIGKILL (or
  // SIGTERM, then SIGKILL after `term_grace`), and after the grace period when pecan is asked to
  // end (child_supervision.h).
  SupervisedEnd Wait(double bound_seconds,
                     std::chrono::milliseconds term_grace = std::chrono::milliseconds(0)) {
    return supervised_.Wait(start_, bound_seconds, term_grace);
  }

 private:
  SupervisedChild supervised_{ChildGroup::kPecans};
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  pid_t pid_ = 0;
  struct sigaction old_quit_ {};
};

}  // namespace pecan::workflow
