// Replays one clip for the workflow commands by running `pecan replay CLIP --json -- PROGRAM...`
// as a child process (exactly what a user would run), bounded in time, and reads its verdict.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workflow/child_process.h"
#include "workflow/finding_summary.h"

namespace pecan::workflow {

// The path of the running pecan binary, so children run the very same build.
std::string SelfExecutable();

// Quotes an argument for a shell command line the user can paste.
std::string ShellQuote(const std::string& word);

// How the user should start this very pecan: "pecan" when that is what PATH finds, else the
// running binary's path (relative when it lies below the working directory), so the commands
// printed work where they are printed, e.g. after scripts/demo.sh, which installs nothing.
std::string PecanCommandName();

// The `pecan replay` command line of a clip, for the user to paste.
std::string ReplayCommandLine(const std::string& clip_path,
                              const std::vector<std::string>& command);

// The last "pecan: error: ..." line a pecan child (record, replay) wrote to its log, without the
// prefix: the one-line reason it failed, even when the program's output surrounds it.
std::string LastPecanError(const std::string& log_path);

// How hunt and triage run each `pecan replay`.
struct ReplayRunSettings {
  double timeout_seconds = 30;  // 0: no bound
  int expect_exit = 0;          // the program's normal exit status (--expect-exit)
  std::string before_each;      // shell command run before each replay (--before-each)
  std::vector<std::string> extra_arguments;  // more `pecan replay` options (--strategy, --seed)

  // How many of `requested` replays may run at once: one when each first restores a shared
  // starting state (--before-each), which overlapping replays would undo for each other.
  size_t ParallelReplays(size_t requested) const { return before_each.empty() ? requested : 1; }
};

// Runs the replay; the child's whole output goes to `log_path`; when the program fails, the
// clip of the failing run goes to `failure_clip_path`. Never throws for a failed replay:
// problems become an "error" verdict with the reason.
SummaryVerdict ReplayClip(const std::string& clip_path, const std::vector<std::string>& command,
                          const ReplayRunSettings& settings, const std::string& log_path,
                          const std::string& failure_clip_path);

}  // namespace pecan::workflow
