// What `pecan fuzz` reports: each run's outcome, the distinct failures (merged by kind and site,
// in the order of their first seed), and those as fuzz.json, SARIF and text.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace_format/version.h"
#include "workflow/finding_summary.h"
#include "workflow/fuzz_race_targets.h"
#include "workflow/replay_runner.h"
#include "workflow/summary_sarif.h"

namespace pecan::workflow {

struct FuzzRun {
  uint64_t seed = 0;
  SummaryVerdict verdict;
  std::string trace;        // --keep-traces: the run's trace
  std::string race_target;  // racefuzzer: the id of the pair the run targeted
  bool drfinder = false;    // drfinder: `races` are those its trace showed under happens-before
  bool noise = false;       // noise: `races` are the runtime's AtomRace findings (and atomicity)
  bool skipped = false;     // never started: the budget ran out first (left out of fuzz.json)
  bool failed() const { return !verdict.failure.empty(); }
  bool error() const { return verdict.outcome == "error" || verdict.outcome == "infeasible"; }
  const char* outcome() const { return failed() ? "failed" : error() ? "error" : "passed"; }
};

struct FuzzCounts {
  size_t failed = 0, passed = 0, errors = 0;
};

FuzzCounts CountFuzzRuns(const std::vector<FuzzRun>& runs);

struct FuzzFailure {
  const FuzzRun* first = nullptr;  // the run of the lowest seed that failed this way
  std::vector<uint64_t> seeds;
};

// One failure is one kind at one site (where the failing thread was, or the assertion's line);
// without a site, the message without addresses (which move with address randomization).
std::string FuzzFailureKey(const SummaryVerdict& verdict);

std::vector<FuzzFailure> DistinctFuzzFailures(const std::vector<FuzzRun>& runs);

nlohmann::json FuzzFailureJson(const SummaryVerdict& verdict);

// fuzz.json: `settings` (strategy and its parameters) plus counts, failures and runs.
nlohmann::json FuzzJson(nlohmann::json settings, const std::vector<FuzzRun>& runs,
                        const std::vector<FuzzFailure>& failures,
                        const std::vector<std::string>& command);

std::string FuzzRuleDescription(const std::string& kind);

// SARIF 2.1.0: one result per distinct failure, at its site when known.
nlohmann::json FuzzSarif(const std::vector<FuzzFailure>& failures, size_t runs,
                         const std::vector<std::string>& command, const std::string& source_root);

// Per racing pair: how many runs targeted it, created a real race on it, and failed.
struct RaceTargetCounts {
  size_t runs = 0, with_race = 0, failed = 0;
};

RaceTargetCounts CountRaceTarget(const RaceTarget& target, const std::vector<FuzzRun>& runs);

nlohmann::json RaceTargetsJson(const std::vector<RaceTarget>& targets,
                               const std::vector<FuzzRun>& runs);

void PrintRaceTargets(std::ostream& out, const std::vector<RaceTarget>& targets,
                      const std::vector<FuzzRun>& runs);

// The text summary: failures first, each with its replay command.
void PrintFuzzSummary(std::ostream& out, const std::string& strategy,
                      const std::vector<FuzzRun>& runs, const std::vector<FuzzFailure>& failures,
                      const std::vector<std::string>& command, const std::string& directory);

}  // namespace pecan::workflow
