#include "workflow/fuzz_report.h"

namespace pecan::workflow {

FuzzCounts CountFuzzRuns(const std::vector<FuzzRun>& runs) {
  FuzzCounts counts;
  for (const FuzzRun& run : runs) {
    if (run.failed())
      ++counts.failed;
    else if (run.error())
      ++counts.errors;
    else
      ++counts.passed;
  }
  return counts;
}

std::string FuzzFailureKey(const SummaryVerdict& verdict) {
  if (!verdict.failure_site.empty()) return verdict.failure + "|" + verdict.failure_site;
  static const std::regex address("0x[0-9a-f]+");
  return verdict.failure + "|" + std::regex_replace(verdict.failure_message, address, "0x?");
}

std::vector<FuzzFailure> DistinctFuzzFailures(const std::vector<FuzzRun>& runs) {
  std::vector<FuzzFailure> failures;
  std::map<std::string, size_t> index;
  for (const FuzzRun& run : runs) {
    if (!run.failed()) continue;
    auto [entry, added] = index.try_emplace(FuzzFailureKey(run.verdict), failures.size());
    if (added) failures.push_back({&run, {}});
    failures[entry->second].seeds.push_back(run.seed);
  }
  return failures;
}

nlohmann::json FuzzFailureJson(const SummaryVerdict& verdict) {
  nlohmann::json failure{{"kind", verdict.failure}, {"message", verdict.failure_message}};
  failure["thread"] = verdict.failure_thread.empty() ? nlohmann::json(nullptr)
                                                     : nlohmann::json(verdict.failure_thread);
  failure["site"] =
      verdict.failure_site.empty() ? nlohmann::json(nullptr) : nlohmann::json(verdict.failure_site);
  return failure;
}

nlohmann::json FuzzJson(nlohmann::json settings, const std::vector<FuzzRun>& runs,
                        const std::vector<FuzzFailure>& failures,
                        const std::vector<std::string>& command) {
  nlohmann::json run_records = nlohmann::json::array();
  for (const FuzzRun& run : runs) {
    nlohmann::json record{{"seed", run.seed},
                          {"outcome", run.outcome()},
                          {"events", run.verdict.events},
                          {"idle_handovers", run.verdict.idle_handovers},
                          {"unsettled_choices", run.verdict.unsettled_choices},
                          {"seconds", run.verdict.seconds}};
    if (run.failed()) {
      record["failure"] = FuzzFailureJson(run.verdict);
      record["clip"] = run.verdict.failure_clip;
    } else if (run.error()) {
      record["error"] = run.verdict.reason;
    }
    if (!run.trace.empty()) record["trace"] = run.trace;
    if (!run.race_target.empty()) record["race_target"] = run.race_target;
    if (!run.race_target.empty() || run.drfinder || run.noise) {
      record["races"] = run.verdict.races;
      record["races_total"] = run.verdict.races_total;
    }
    run_records.push_back(std::move(record));
  }
  nlohmann::json distinct = nlohmann::json::array();
  for (const FuzzFailure& failure : failures) {
    nlohmann::json entry = FuzzFailureJson(failure.first->verdict);
    entry["count"] = failure.seeds.size();
    entry["seeds"] = failure.seeds;
    entry["clip"] = failure.first->verdict.failure_clip;
    entry["replay_command"] = ReplayCommandLine(failure.first->verdict.failure_clip, command);
    distinct.push_back(std::move(entry));
  }
  settings["tool"] = "pecan fuzz";
  settings["version"] = kVersionString;
  settings["program"] = command.front();
  settings["arguments"] = std::vector<std::string>(command.begin() + 1, command.end());
  const FuzzCounts counts = CountFuzzRuns(runs);
  settings["counts"] = {{"runs", runs.size()},
                        {"failed", counts.failed},
                        {"passed", counts.passed},
                        {"errors", counts.errors},
                        {"distinct_failures", failures.size()}};
  settings["failures"] = std::move(distinct);
  settings["runs"] = std::move(run_records);
  return settings;
}

std::string FuzzRuleDescription(const std::string& kind) {
  if (kind == "deadlock") return "Deadlock: every thread waits for another";
  if (kind == "timeout") return "Hang: the run made no progress within its time bound";
  if (kind == "assertion") return "Assertion failure under a seeded schedule";
  if (kind == "crashed") return "Crash (fatal signal) under a seeded schedule";
  if (kind == "exit") return "Unexpected exit status under a seeded schedule";
  return "Failure under a seeded schedule: " + kind;
}

nlohmann::json FuzzSarif(const std::vector<FuzzFailure>& failures, size_t runs,
                         const std::vector<std::string>& command, const std::string& source_root) {
  nlohmann::json rules = nlohmann::json::array();
  std::vector<std::string> rule_ids;
  nlohmann::json results = nlohmann::json::array();
  for (const FuzzFailure& failure : failures) {
    const SummaryVerdict& verdict = failure.first->verdict;
    size_t rule = 0;
    while (rule < rule_ids.size() && rule_ids[rule] != verdict.failure) ++rule;
    if (rule == rule_ids.size()) {
      rule_ids.push_back(verdict.failure);
      rules.push_back({{"id", verdict.failure},
                       {"shortDescription", {{"text", FuzzRuleDescription(verdict.failure)}}}});
    }
    nlohmann::json result{
        {"ruleId", verdict.failure},
        {"ruleIndex", rule},
        {"level", "error"},
        {"message",
         {{"text", verdict.failure + " in " + std::to_string(failure.seeds.size()) + " of " +
                       std::to_string(runs) + " runs: " + verdict.failure_message +
                       "; reproduce: " + ReplayCommandLine(verdict.failure_clip, command)}}},
        {"partialFingerprints", {{"pecanFuzzFailure/v1", FuzzFailureKey(verdict)}}},
        {"properties", {{"seeds", failure.seeds}, {"clip", verdict.failure_clip}}}};
    nlohmann::json locations = nlohmann::json::array();
    if (!verdict.failure_file.empty()) {
      nlohmann::json physical{
          {"artifactLocation", SarifArtifactLocation(verdict.failure_file, source_root)}};
      if (verdict.failure_line != 0) physical["region"] = {{"startLine", verdict.failure_line}};
      locations.push_back({{"physicalLocation", std::move(physical)}});
    }
    result["locations"] = std::move(locations);
    results.push_back(std::move(result));
  }
  return SarifLog("pecan fuzz", std::move(rules), std::move(results), source_root);
}

RaceTargetCounts CountRaceTarget(const RaceTarget& target, const std::vector<FuzzRun>& runs) {
  RaceTargetCounts counts;
  for (const FuzzRun& run : runs) {
    if (run.race_target != target.id) continue;
    ++counts.runs;
    counts.with_race += run.verdict.races_total > 0;
    counts.failed += run.failed();
  }
  return counts;
}

nlohmann::json RaceTargetsJson(const std::vector<RaceTarget>& targets,
                               const std::vector<FuzzRun>& runs) {
  nlohmann::json json = nlohmann::json::array();
  for (const RaceTarget& target : targets) {
    const RaceTargetCounts counts = CountRaceTarget(target, runs);
    json.push_back({{"id", target.id},
                    {"statements", target.where},
                    {"runs", counts.runs},
                    {"runs_with_real_race", counts.with_race},
                    {"runs_failed", counts.failed}});
  }
  return json;
}

void PrintRaceTargets(std::ostream& out, const std::vector<RaceTarget>& targets,
                      const std::vector<FuzzRun>& runs) {
  out << "\nRacing pairs (a real race: both threads about to access the same bytes, one "
         "writing):\n";
  for (const RaceTarget& target : targets) {
    const RaceTargetCounts counts = CountRaceTarget(target, runs);
    out << "  " << target.id << "  " << target.where << ": real race in " << counts.with_race
        << " of " << counts.runs << " runs, failed in " << counts.failed << "\n";
  }
}

void PrintFuzzSummary(std::ostream& out, const std::string& strategy,
                      const std::vector<FuzzRun>& runs, const std::vector<FuzzFailure>& failures,
                      const std::vector<std::string>& command, const std::string& directory) {
  const FuzzCounts counts = CountFuzzRuns(runs);
  out << "pecan fuzz: " << runs.size() << " " << strategy << " runs of " << command.front() << ": "
      << counts.failed << " failed";
  if (counts.errors > 0) out << ", " << counts.errors << " could not run";
  out << "\n";
  size_t number = 0;
  for (const FuzzFailure& failure : failures) {
    const SummaryVerdict& verdict = failure.first->verdict;
    out << "\n" << ++number << ". " << verdict.failure;
    if (!verdict.failure_site.empty()) out << " at " << verdict.failure_site;
    out << " in " << failure.seeds.size() << " of " << runs.size() << " runs (first: seed "
        << failure.seeds.front() << ")\n"
        << "   " << verdict.failure_message << "\n";
    if (!verdict.failure_clip.empty())
      out << "   reproduce: " << ReplayCommandLine(verdict.failure_clip, command) << "\n";
    else
      out << "   no clip reproduces it: " << verdict.reason << "\n";
  }
  for (const FuzzRun& run : runs)
    if (run.error()) {
      out << "\nrun " << run.seed << " could not run: " << run.verdict.reason << "\n";
      break;
    }
  out << "\nDetails: " << directory << "/fuzz.json (and fuzz.sarif); failure clips in " << directory
      << "/failures/\n";
}

}  // namespace pecan::workflow
