// The exploring phase of `pecan hunt`: when replaying the predictions made nothing fail, the
// time left in the hunt's budget goes to `pecan fuzz` runs — RaceFuzzer on the predicted racing
// pairs, PCT (depth 3) and random, in rounds of a few runs each — until one fails. A failure
// comes with the chain that found it (strategy and seed) and its failure clip, which the hunt
// replays again to check that it fails every time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pecan::workflow {

struct ExploreSettings {
  std::vector<std::string> command;
  int expect_exit = 0;
  double run_timeout = 10;  // per fuzz run
  size_t jobs = 2;
  double seconds = 0;        // the time the exploration may take
  std::string directory;     // explore/ in the hunt's directory (created)
  std::string races_report;  // report.json when it predicts races (RaceFuzzer's targets), or ""
  size_t checks = 3;         // replays of a failure clip that must all fail
};

struct ExploreFailure {
  std::string strategy;  // "pct", "random", "racefuzzer"
  uint64_t seed = 0;
  std::string kind;  // assertion, crashed, exit, deadlock, timeout
  std::string message;
  std::string site;
  std::string clip;
  size_t checks_failed = 0;  // of `checks` replays of the clip, how many failed the same way
  size_t checks = 0;
};

struct ExploreResult {
  std::map<std::string, size_t> runs;  // per strategy
  std::vector<ExploreFailure> failures;
  double seconds = 0;
  std::string stopped;  // why it ended: "a run failed", "budget spent"
};

ExploreResult Explore(const ExploreSettings& settings);

nlohmann::json ExploreJson(const ExploreResult& result, const std::vector<std::string>& command);

// The failures as a section of hunt's report.html ("" when there are none).
std::string ExploreHtml(const ExploreResult& result, const std::vector<std::string>& command);

// Adds one SARIF result per failure (rule "explored-KIND", level error) to `sarif`'s run.
void AddExploreToSarif(nlohmann::json& sarif, const ExploreResult& result,
                       const std::vector<std::string>& command);

}  // namespace pecan::workflow
