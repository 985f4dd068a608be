// Hunt's exploring phase (hunt_explore.h): hunt's own replays, then `pecan fuzz` children with
// --budget and --until-failure, their fuzz.json read back.
#include "workflow/hunt_explore.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>

#include "workflow/child_process.h"
#include "workflow/html_summary.h"
#include "workflow/job_runner.h"
#include "workflow/replay_runner.h"

namespace pecan::workflow {
namespace {

namespace fs = std::filesystem;

// Runs per strategy and round: small, so every strategy gets a turn early.
constexpr size_t kRunsPerRound = 10;
// A fuzz child that starts with less time than this is not worth its start-up.
constexpr double kLeastUsefulSeconds = 1.0;

struct FuzzChild {
  size_t runs = 0;
  uint64_t steps = 0;  // PCT's k, as measured by the child
  std::vector<ExploreFailure> failures;
};

FuzzChild RunFuzzChild(const ExploreSettings& settings, const std::string& strategy, size_t round,
                       double seconds, uint64_t steps, const std::string& directory) {
  char budget[32], timeout[32];
  std::snprintf(budget, sizeof budget, "%.1f", seconds);
  std::snprintf(timeout, sizeof timeout, "%g", settings.run_timeout);
  ChildSpec spec;
  spec.argv = {SelfExecutable(),
               "fuzz",
               "--strategy",
               strategy,
               "--runs",
               std::to_string(kRunsPerRound),
               "--seed",
               std::to_string(round * kRunsPerRound),
               "--budget",
               budget,
               "--until-failure",
               "--timeout",
               timeout,
               "-j",
               std::to_string(settings.jobs),
               "--expect-exit",
               std::to_string(settings.expect_exit),
               "-o",
               directory};
  if (strategy == "pct") {
    spec.argv.insert(spec.argv.end(), {"--depth", "3"});
    if (steps > 0) spec.argv.insert(spec.argv.end(), {"--steps", std::to_string(steps)});
  }
  if (strategy == "racefuzzer")
    spec.argv.insert(spec.argv.end(), {"--races", settings.races_report});
  spec.argv.push_back("--");
  spec.argv.insert(spec.argv.end(), settings.command.begin(), settings.command.end());
  spec.stdout_path = directory + ".log";
  spec.stderr_path = directory + ".log";
  RunChild(spec);

  FuzzChild child;
  std::ifstream in(directory + "/fuzz.json");
  if (!in) return child;
  nlohmann::json summary;
  try {
    in >> summary;
  } catch (const std::exception&) {
    return child;
  }
  child.runs = summary["runs"].size();
  child.steps = summary.value("steps", uint64_t{0});
  for (const nlohmann::json& failure : summary["failures"]) {
    ExploreFailure found;
    found.strategy = strategy;
    found.seed = failure["seeds"].empty() ? 0 : failure["seeds"][0].get<uint64_t>();
    found.chain = "pecan fuzz --strategy " + strategy + ", seed " + std::to_string(found.seed);
    found.bound = settings.run_timeout;
    found.kind = failure.value("kind", "");
    found.message = failure.value("message", "");
    if (failure["site"].is_string()) found.site = failure["site"].get<std::string>();
    found.clip = failure.value("clip", "");
    if (!found.clip.empty()) child.failures.push_back(std::move(found));
  }
  return child;
}

// Replays the failure clip `settings.checks` times; counts the replays that fail the same way.
void CheckFailure(const ExploreSettings& settings, ExploreFailure& failure) {
  // The bound the failing run had, and a little more: a hang's replay lasts that long.
  const ReplayRunSettings replay{failure.bound + 2, settings.expect_exit, "", {}};
  failure.checks = settings.checks;
  static std::atomic<size_t> checked{0};
  const std::string prefix = settings.directory + "/check-" + std::to_string(checked++) + "-";
  for (size_t i = 0; i < settings.checks; ++i) {
    const std::string base = prefix + std::to_string(i);
    const SummaryVerdict verdict =
        ReplayClip(failure.clip, settings.command, replay, base + ".log", base + ".clip");
    failure.checks_failed += verdict.failure == failure.kind;
    fs::remove(base + ".clip");
    if (verdict.failure == failure.kind) fs::remove(base + ".log");
  }
}

// Files a checked failure under result.failures when its clip failed again, else under
// result.unreproduced. True when it was reproduced.
bool FileFailure(ExploreFailure failure, ExploreResult& result) {
  const bool reproduced = failure.checks_failed > 0;
  (reproduced ? result.failures : result.unreproduced).push_back(std::move(failure));
  return reproduced;
}

// Checks each of `found` and files it. True when one was reproduced.
bool FileFailures(const ExploreSettings& settings, std::vector<ExploreFailure> found,
                  ExploreResult& result) {
  bool reproduced = false;
  for (ExploreFailure& failure : found) {
    CheckFailure(settings, failure);
    reproduced |= FileFailure(std::move(failure), result);
  }
  return reproduced;
}

// Runs settings.replays until one makes the program fail in a way its failure clip repeats, or
// the time is spent. Failures are checked as they come (hunt_explore.h: failures/unreproduced);
// those of replays already running when the first one was reproduced are kept too.
void RunReplays(const ExploreSettings& settings, const std::function<double()>& seconds_left,
                ExploreResult& result) {
  const std::string directory = settings.directory + "/replays";
  fs::create_directories(directory);
  std::mutex mutex;
  bool reproduced = false;
  RunJobs(settings.replays.size(), settings.jobs, [&](size_t k) {
    const ExploreReplay& planned = settings.replays[k];
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (reproduced) return;
    }
    const double bound = std::min(settings.replay_timeout, seconds_left());
    if (bound < kLeastUsefulSeconds) return;
    const std::string base = directory + "/" + std::to_string(k + 1) + "-" + planned.strategy;
    const ReplayRunSettings replay{bound, settings.expect_exit, "", planned.arguments};
    const SummaryVerdict verdict =
        ReplayClip(planned.clip, settings.command, replay, base + ".log", base + ".failure.clip");
    {
      const std::lock_guard<std::mutex> lock(mutex);
      ++result.runs[planned.strategy];
    }
    if (verdict.failure.empty() || verdict.failure_clip.empty()) return;
    ExploreFailure failure;
    failure.strategy = planned.strategy;
    failure.seed = planned.seed;
    failure.chain = planned.chain;
    failure.bound = bound;
    failure.kind = verdict.failure;
    failure.message = verdict.failure_message;
    failure.site = verdict.failure_site;
    failure.clip = verdict.failure_clip;
    CheckFailure(settings, failure);
    const std::lock_guard<std::mutex> lock(mutex);
    reproduced |= FileFailure(std::move(failure), result);
  });
}

}  // namespace

ExploreResult Explore(const ExploreSettings& settings) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  fs::create_directories(settings.directory);
  std::vector<std::string> strategies;
  if (!settings.races_report.empty()) strategies.push_back("racefuzzer");
  strategies.insert(strategies.end(), {"pct", "random"});
  ExploreResult result;
  uint64_t pct_steps = 0;
  result.stopped = "budget spent";
  RunReplays(settings, [&] { return settings.seconds - elapsed(); }, result);
  if (!result.failures.empty()) result.stopped = "a replay failed";
  for (size_t round = 0; result.failures.empty(); ++round) {
    bool ran = false;
    for (const std::string& strategy : strategies) {
      const double left = settings.seconds - elapsed();
      if (left < kLeastUsefulSeconds) break;
      const std::string directory =
          settings.directory + "/" + strategy + "-" + std::to_string(round + 1);
      FuzzChild child = RunFuzzChild(settings, strategy, round, left, pct_steps, directory);
      ran = true;
      result.runs[strategy] += child.runs;
      if (strategy == "pct" && child.steps > 0) pct_steps = child.steps;
      if (!child.failures.empty() && FileFailures(settings, std::move(child.failures), result)) {
        result.stopped = "a run failed";
        break;
      }
      // RaceFuzzer with nothing to target, or a strategy that cannot run the program: drop it.
      if (child.runs == 0) {
        strategies.erase(std::find(strategies.begin(), strategies.end(), strategy));
        break;
      }
    }
    if (!ran || strategies.empty()) break;
  }
  result.seconds = elapsed();
  return result;
}

nlohmann::json ExploreJson(const ExploreResult& result, const std::vector<std::string>& command) {
  auto listed = [&](const std::vector<ExploreFailure>& list) {
    nlohmann::json failures = nlohmann::json::array();
    for (const ExploreFailure& failure : list)
      failures.push_back(
          {{"strategy", failure.strategy},
           {"seed", failure.seed},
           {"chain", failure.chain},
           {"kind", failure.kind},
           {"message", failure.message},
           {"site", failure.site.empty() ? nlohmann::json(nullptr) : nlohmann::json(failure.site)},
           {"clip", failure.clip},
           {"replay_command", ReplayCommandLine(failure.clip, command)},
           {"checks", failure.checks},
           {"checks_failed", failure.checks_failed}});
    return failures;
  };
  return {{"runs", result.runs},
          {"seconds", result.seconds},
          {"stopped", result.stopped},
          {"failures", listed(result.failures)},
          {"unreproduced", listed(result.unreproduced)}};
}

std::string ExploreHtml(const ExploreResult& result, const std::vector<std::string>& command) {
  if (result.failures.empty()) return "";
  std::string html =
      "<section id=\"explored\">\n<h2>Exposed by exploring schedules after the "
      "predictions</h2>\n<ol>\n";
  for (const ExploreFailure& failure : result.failures) {
    html += "<li class=\"explored-failure\"><b>" + XmlEscape(failure.kind) + "</b>" +
            (failure.site.empty() ? "" : " at " + XmlEscape(failure.site)) +
            " <span class=\"chain\">(" + XmlEscape(failure.chain) + ")</span><br>" +
            XmlEscape(failure.message) +
            "<br>reproduce: <code>" + XmlEscape(ReplayCommandLine(failure.clip, command)) +
            "</code><br>its clip failed the " + "same way in " +
            std::to_string(failure.checks_failed) + " of " + std::to_string(failure.checks) +
            " replays</li>\n";
  }
  return html + "</ol>\n</section>\n";
}

void AddExploreToSarif(nlohmann::json& sarif, const ExploreResult& result,
                       const std::vector<std::string>& command) {
  if (result.failures.empty()) return;
  nlohmann::json& run = sarif["runs"][0];
  nlohmann::json& rules = run["tool"]["driver"]["rules"];
  for (const ExploreFailure& failure : result.failures) {
    const std::string rule_id = "explored-" + failure.kind;
    size_t rule = 0;
    while (rule < rules.size() && rules[rule]["id"] != rule_id) ++rule;
    if (rule == rules.size())
      rules.push_back({{"id", rule_id},
                       {"shortDescription",
                        {{"text", "Failure found by exploring schedules: " + failure.kind}}}});
    run["results"].push_back(
        {{"ruleId", rule_id},
         {"ruleIndex", rule},
         {"level", "error"},
         {"message",
          {{"text", failure.kind + (failure.site.empty() ? "" : " at " + failure.site) +
                        " (" + failure.chain + "): " + failure.message +
                        "; reproduce: " + ReplayCommandLine(failure.clip, command)}}},
         {"partialFingerprints", {{"pecanExploredFailure/v1", failure.kind + "|" + failure.site}}},
         {"properties",
          {{"clip", failure.clip},
           {"checks", failure.checks},
           {"checks_failed", failure.checks_failed}}}});
  }
}

}  // namespace pecan::workflow
