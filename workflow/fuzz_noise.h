// `pecan fuzz --strategy noise`: AtomRace (Letko, Vojnar, Křena, PADTAD 2008). Threads run
// freely (recorded, not serialized); the runtime catches races as violations of primitive atomic
// sections and atomicity violations of pecan regions, and injects noise inside the sections
// (recorder/noise_sections.h). The heuristics that choose where:
//   random    every access, with --frequency per mille;
//   variable  the accesses of a few variables, rotated between runs;
//   location  a few instructions, rotated between runs.
// Variables and locations come from a first recorded run: the variables of its predicted races
// first (as the paper used Eraser to point at variables), then every other location two threads
// accessed, one of them writing. A failing run is replayed from its recorded clip, which then
// reproduces the failure on demand.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "trace_format/trace.h"
#include "workflow/fuzz_report.h"

namespace pecan::workflow {

struct NoiseSettings {
  std::string heuristic = "random";
  uint32_t frequency = 0;  // per mille; 0: the heuristic's default
  uint32_t strength = 10;  // microseconds of sleep before the yield
  size_t focus = 0;        // variables or locations per run; 0: the heuristic's default
  double timeout = 10;
  int expect_exit = 0;
  bool keep_traces = false;
  std::string atomic_sections;  // the runtime's PECAN_NOISE_ATOMIC file, or ""
  std::vector<std::string> command;
};

// Reads the user's atomic sections (`--atomic FILE`: lines `function NAME` and
// `lines SOURCE:FIRST-LAST`, # comments) and writes them for the runtime to `out_path` as code
// ranges of `program`. Returns how many sections; throws PecanError naming the line of a bad or
// unknown entry.
size_t WriteAtomicSections(const std::string& spec_path, const std::string& program,
                           const std::string& out_path);

// Where the focused heuristics point: each variable with the instructions that accessed it in
// the first run (module path + offset).
struct NoiseTarget {
  std::string name;  // "counter", or the address for a heap location
  std::vector<std::pair<std::string, uint64_t>> sites;
};

// The variables to rotate through, most suspect first (see above).
std::vector<NoiseTarget> NoiseTargetsOf(const Trace& first_run);

uint32_t DefaultNoiseFrequency(const std::string& heuristic);
size_t DefaultNoiseFocus(const std::string& heuristic);

// One run of seed `seed` (the n-th run): records into `trace_path`, writes the runtime's
// findings to `report_path` and, for a failing run, its recorded clip to `clip_path` and the
// replay's output to `replay_log`. `focus_path`: where this run's focus file goes (variable and
// location). Returns the run with its verdict and `races`.
FuzzRun RunNoiseOnce(const NoiseSettings& settings, const std::vector<NoiseTarget>& targets,
                     uint64_t seed, size_t n, const std::string& trace_path,
                     const std::string& report_path, const std::string& focus_path,
                     const std::string& log_path, const std::string& clip_path,
                     const std::string& replay_log);

// The distinct races and atomicity violations the runs caught, each with the runs that caught it.
void PrintNoiseFindings(std::ostream& out, const std::vector<FuzzRun>& runs);

}  // namespace pecan::workflow
