// `pecan fuzz`'s runs: the program run many times under seeded schedules (random, PCT,
// RaceFuzzer, DrFinder) or with noise (AtomRace), each failure kept as a clip that reproduces it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pecan::workflow {

struct FuzzOptions {
  std::string strategy = "random";
  size_t runs = 100;
  uint64_t seed = 0;
  uint32_t depth = 3;
  uint64_t steps = 0;  // PCT's k; 0: measured by one random run
  double timeout = 10;
  size_t jobs = 2;
  int expect_exit = 0;
  std::string output = "pecan-fuzz";
  bool keep_traces = false;
  std::string source_root;  // for SARIF; empty: the working directory
  std::string races;        // racefuzzer: the report whose races to target
  std::string race;         // racefuzzer: only this finding's pair
  std::string heuristic = "random";   // noise
  std::optional<uint32_t> frequency;  // noise: per mille (default: the heuristic's)
  std::optional<uint32_t> strength;   // noise: microseconds of sleep before the yield
  std::optional<size_t> focus;        // noise: variables or locations per run
  std::string atomic;                 // noise: the user's atomic sections (functions, lines)
  double budget = 0;                  // seconds after which no run starts (0: none)
  bool until_failure = false;         // no run starts once one has failed
  std::vector<std::string> command;
};

// Runs the fuzzing into options.output. Exit status: 1 when a run failed, 0 when none did, 2 on
// errors.
int RunFuzz(FuzzOptions options);

}  // namespace pecan::workflow
