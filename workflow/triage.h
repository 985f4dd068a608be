// `pecan triage`'s three runs: triage many traces (or one shard of them) in parallel and merge
// their findings; merge a sharded triage's parts; replay a triage's clips (or a shard of them).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pecan::workflow {

struct TriageOptions {
  std::vector<std::string> inputs;   // trace files and directories
  std::vector<std::string> command;  // the program (and its arguments) after --
  std::string output;                // empty: pecan-triage (pecan-triage-shard-K with --shard)
  size_t jobs = 2;
  bool replay = false;
  double timeout = 30;
  std::string regions = "locks";
  std::string patterns = "all";
  std::string source_root;  // empty: the working directory
  int expect_exit = 0;
  std::string before_each;
  std::string shard;  // "K/N"; empty: every trace
  std::string suppressions;
};

struct TriageMergeOptions {
  std::vector<std::string> parts;
  std::string output = "pecan-triage";
  std::string source_root;
};

struct TriageReplayOptions {
  std::string input;                 // a triage's (or merge's) output directory
  std::vector<std::string> command;  // the program after --
  std::string output;                // empty: pecan-triage-replay (-shard-K with --shard)
  std::string shard;
  size_t jobs = 2;
  double timeout = 30;
  int expect_exit = 0;
  std::string before_each;
  std::string source_root;
};

// Each returns the exit status of the summaries it writes (triage_report.h) and throws PecanError
// for what stops it before they are written.
int RunTriage(const TriageOptions& options);
int RunTriageMerge(const TriageMergeOptions& options);
int RunTriageReplay(const TriageReplayOptions& options);

}  // namespace pecan::workflow
