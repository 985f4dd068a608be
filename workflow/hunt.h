// `pecan hunt`'s chain: records one run, predicts the anomalies, writes a clip for each, replays
// them ranked (N at a time), explores with fuzz runs when no replay failed, and reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pecan::workflow {

struct HuntOptions {
  std::string output = "pecan-out";
  std::string suppressions;
  size_t jobs = 2;
  double timeout = 30;
  double record_timeout = 60;  // 0: none
  std::string regions = "locks";
  std::string patterns = "all";
  std::string source_root;  // empty: the working directory
  double budget = 60;       // seconds: exploring stops starting runs after this (since the start)
  bool explore = true;      // explore with pecan fuzz when no replay made the program fail
  uint32_t max_per_site = 8;  // predictions of one pattern a site takes part in (0: all)
  int expect_exit = 0;
  std::string before_each;
  std::vector<std::string> command;
};

// Runs the whole hunt into options.output. Exit status: 1 when a finding was confirmed by replay,
// a replay made the program fail or exploring found a failure, 0 when none did, 2 on errors.
int RunHunt(const HuntOptions& options);

}  // namespace pecan::workflow
