// The exploring phase of `pecan hunt`: when replaying the predictions made nothing fail, the
// time left in the hunt's budget goes first to replays hunt prepared (continuations of anomalies
// that hatched without a failure, critical-section flips), then to `pecan fuzz` runs — RaceFuzzer
// on the predicted racing pairs, PCT (depth 3) and random, in rounds of a few runs each — until
// one fails. A failure comes with the chain that found it and its failure clip, which the hunt
// replays again to check that it fails every time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pecan::workflow {

// A replay the exploring phase runs before pecan fuzz, from a clip hunt wrote for it.
struct ExploreReplay {
  std::string strategy;                // "continuation" or "flip"
  std::string clip;
  std::vector<std::string> arguments;  // more `pecan replay` options (--race-order, --seed, ...)
  uint64_t seed = 0;
  std::string chain;  // how hunt came to it, e.g. "critical-section flip flip-1a2b3c4d"
};

struct ExploreSettings {
  std::vector<std::string> command;
  // Run first, in order, `jobs` at a time, each bounded by replay_timeout; none starts after
  // one failed or the time is spent.
  std::vector<ExploreReplay> replays;
  double replay_timeout = 30;
  int expect_exit = 0;
  double run_timeout = 10;  // per fuzz run
  size_t jobs = 2;
  double seconds = 0;        // the time the exploration may take
  std::string directory;     // explore/ in the hunt's directory (created)
  std::string races_report;  // report.json when it predicts races (RaceFuzzer's targets), or ""
  size_t checks = 3;         // replays of a failure clip; it counts when one fails again
};

struct ExploreFailure {
  std::string strategy;  // "continuation", "flip", "pct", "random", "racefuzzer"
  uint64_t seed = 0;
  std::string chain;  // how it was found, e.g. "pecan fuzz --strategy pct, seed 12"
  double bound = 0;   // the failing run's time bound (its checks get 2 s more)
  std::string kind;  // assertion, crashed, exit, deadlock, timeout
  std::string message;
  std::string site;
  std::string clip;
  size_t checks_failed = 0;  // of `checks` replays of the clip, how many failed the same way
  size_t checks = 0;
};

struct ExploreResult {
  std::map<std::string, size_t> runs;  // per strategy (replays: "continuation", "flip")
  // Failures whose clip failed the same way in at least one check replay: what hunt reports.
  std::vector<ExploreFailure> failures;
  // Runs that failed but whose clip then never did (say a run slowed past its time bound by
  // its strategy): not exposed bugs, kept for the record. Exploring goes on after them.
  std::vector<ExploreFailure> unreproduced;
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
