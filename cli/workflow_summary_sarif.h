// SARIF 2.1.0 for triage's merged findings (summary.sarif), so code-scanning tools can show them:
// one result per distinct finding, located at its first symbolized event, the others related.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/workflow_finding_summary.h"
#include "trace_format/version.h"

namespace pecan::cli {

namespace summary_sarif_detail {

inline nlohmann::json Location(const SummaryEvent& event, int id) {
  nlohmann::json location{
      {"message", {{"text", event.thread_name + " " + event.kind + " " + event.site.text}}}};
  if (id >= 0) location["id"] = id;
  if (!event.site.file.empty()) {
    nlohmann::json physical{{"artifactLocation", {{"uri", event.site.file}}}};
    if (event.site.line != 0) physical["region"] = {{"startLine", event.site.line}};
    location["physicalLocation"] = std::move(physical);
  }
  if (!event.site.function.empty())
    location["logicalLocations"] =
        nlohmann::json::array({{{"name", event.site.function}, {"kind", "function"}}});
  return location;
}

inline std::string RuleDescription(const std::string& pattern) {
  if (pattern == "race")
    return "Data race: two threads access one location, at least one writes, with no common lock "
           "and no ordering";
  if (pattern == "atomicity")
    return "Atomicity violation: another thread's access interleaves two accesses of one atomic "
           "region";
  if (pattern == "asv")
    return "Atomic-set serializability violation: another unit of work interleaves accesses to an "
           "atomic set";
  if (pattern == "deadlock") return "Deadlock: threads acquire locks in a cyclic order";
  return "User-defined access-anomaly pattern " + pattern;
}

}  // namespace summary_sarif_detail

inline nlohmann::json SummarySarif(const std::vector<SummaryFinding>& findings) {
  using namespace summary_sarif_detail;
  nlohmann::json rules = nlohmann::json::array();
  std::vector<std::string> rule_ids;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& finding : findings) {
    size_t rule_index = 0;
    while (rule_index < rule_ids.size() && rule_ids[rule_index] != finding.pattern) rule_index++;
    if (rule_index == rule_ids.size()) {
      rule_ids.push_back(finding.pattern);
      rules.push_back({{"id", finding.pattern},
                       {"shortDescription", {{"text", RuleDescription(finding.pattern)}}}});
    }
    const bool confirmed = finding.verdict.outcome == "hatched";
    std::string text = finding.pattern + " " + finding.variant;
    text += confirmed                         ? " confirmed by replay"
            : finding.verdict.outcome.empty() ? " predicted (not replayed)"
                                              : " predicted; replay: " + finding.verdict.outcome;
    if (!finding.verdict.failure.empty())
      text += " (the program then failed: " + finding.verdict.failure + ")";
    text += "; seen in " + std::to_string(finding.traces.size()) + " trace(s)";
    nlohmann::json result{
        {"ruleId", finding.pattern},
        {"ruleIndex", rule_index},
        {"level", confirmed ? "error" : "warning"},
        {"message", {{"text", text}}},
        {"partialFingerprints", {{"pecanFinding/v1", finding.id}}},
        {"properties",
         {{"variant", finding.variant},
          {"verdict", finding.verdict.outcome.empty() ? "not replayed" : finding.verdict.outcome},
          {"traces", finding.traces.size()},
          {"witnesses", finding.witnesses}}}};
    nlohmann::json related = nlohmann::json::array();
    bool located = false;
    for (size_t e = 0; e < finding.events.size(); e++) {
      const SummaryEvent& event = finding.events[e];
      if (!located && !event.site.file.empty()) {
        result["locations"] = nlohmann::json::array({Location(event, -1)});
        located = true;
      }
      related.push_back(Location(event, static_cast<int>(e)));
    }
    if (!located) result["locations"] = nlohmann::json::array();
    result["relatedLocations"] = std::move(related);
    results.push_back(std::move(result));
  }
  return {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       nlohmann::json::array(
           {{{"tool",
              {{"driver",
                {{"name", "pecan"}, {"version", kVersionString}, {"rules", std::move(rules)}}}}},
             {"results", std::move(results)}}})}};
}

}  // namespace pecan::cli
