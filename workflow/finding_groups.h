// One entry per bug in the workflow's reports: findings that touch the same variable (or, when it
// has no name, the same code) at a shared code location are variants of one bug — an unprotected
// `hits++` is a read-write race, a write-read race, a write-write race and an atomicity violation
// at once. An entry is as strong as its strongest evidence: failed > confirmed > predicted >
// refuted.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workflow/finding_summary.h"

namespace pecan::workflow {

// What replay made of a finding, strongest first.
enum class Evidence { kFailed = 0, kConfirmed = 1, kPredicted = 2, kRefuted = 3 };

// failed: its replay made the program fail (confirmed, then a failure; or exposed);
// confirmed: its anomaly or deadlock formed; refuted: replay showed it cannot happen;
// predicted: anything else (not replayed, no feasible clip, a replay that could not run).
Evidence EvidenceOf(const SummaryFinding& finding);
const char* EvidenceName(Evidence evidence);  // "failed", "confirmed", "predicted", "refuted"

struct FindingGroup {
  std::string id;  // "bug-" and 8 hex digits of its first member's merge key
  Evidence evidence = Evidence::kPredicted;
  std::string title;               // "data race, atomicity violation on `hits`"
  std::string variable;            // the variable its events touch most, "" when none is named
  std::vector<size_t> members;     // indexes into the findings, strongest evidence first
  std::vector<SummarySite> sites;  // its events' distinct code locations, strongest member first
  size_t traces = 0;               // distinct traces showing any variant
};

// The bugs of `findings` (in any order), strongest evidence first; within one evidence, in the
// order of their first member among `findings`. Every finding is in exactly one group.
std::vector<FindingGroup> GroupFindings(const std::vector<SummaryFinding>& findings);

// The groups for summary.json and verdicts.json: id, evidence, title, variable, sites (text,
// file, line, function), traces and the member findings' ids.
nlohmann::json GroupsJson(const std::vector<FindingGroup>& groups,
                          const std::vector<SummaryFinding>& findings);

// Sets each finding's "bug" (its group's id) in `findings_json`, the findings' objects in the
// order of the findings the groups were made from.
void MarkBugs(nlohmann::json& findings_json, const std::vector<FindingGroup>& groups);

}  // namespace pecan::workflow
