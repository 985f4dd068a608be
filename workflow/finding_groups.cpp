#include "workflow/finding_groups.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "workflow/summary_json.h"

namespace pecan::workflow {
namespace {

// Union-find over finding indexes.
class Components {
 public:
  explicit Components(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t Find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void Join(size_t a, size_t b) {
    a = Find(a), b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<size_t> parent_;
};

// The code location of an event, the same in every variant: file and line where known.
std::string LocationKey(const SummarySite& site) {
  if (!site.file.empty() && site.line != 0) return site.file + ":" + std::to_string(site.line);
  return site.text;
}

std::string PatternWords(const std::string& pattern) {
  if (pattern == "race") return "data race";
  if (pattern == "atomicity") return "atomicity violation";
  if (pattern == "asv") return "atomic-set serializability violation";
  if (pattern == "deadlock") return "lock-order deadlock";
  return pattern;
}

}  // namespace

Evidence EvidenceOf(const SummaryFinding& finding) {
  const SummaryVerdict& verdict = finding.verdict;
  if (verdict.outcome == "exposed" || (verdict.confirmed() && !verdict.failure.empty()))
    return Evidence::kFailed;
  if (verdict.confirmed()) return Evidence::kConfirmed;
  if (verdict.outcome == "infeasible") return Evidence::kRefuted;
  return Evidence::kPredicted;
}

const char* EvidenceName(Evidence evidence) {
  switch (evidence) {
    case Evidence::kFailed:
      return "failed";
    case Evidence::kConfirmed:
      return "confirmed";
    case Evidence::kRefuted:
      return "refuted";
    case Evidence::kPredicted:
      break;
  }
  return "predicted";
}

std::vector<FindingGroup> GroupFindings(const std::vector<SummaryFinding>& findings) {
  // Findings meet where an event of each touches the same variable at the same code location
  // (the same code location alone when the variable has no name).
  Components components(findings.size());
  std::map<std::string, size_t> first_with;
  for (size_t i = 0; i < findings.size(); i++) {
    for (const SummaryEvent& event : findings[i].events) {
      const std::string token = event.variable + "@" + LocationKey(event.site);
      auto [it, fresh] = first_with.try_emplace(token, i);
      if (!fresh) components.Join(it->second, i);
    }
  }
  std::map<size_t, FindingGroup> by_root;
  std::vector<size_t> roots;  // in order of first member
  for (size_t i = 0; i < findings.size(); i++) {
    auto [it, fresh] = by_root.try_emplace(components.Find(i));
    if (fresh) roots.push_back(it->first);
    it->second.members.push_back(i);
  }

  std::vector<FindingGroup> groups;
  for (size_t root : roots) {
    FindingGroup group = std::move(by_root[root]);
    std::stable_sort(group.members.begin(), group.members.end(), [&](size_t a, size_t b) {
      return EvidenceOf(findings[a]) < EvidenceOf(findings[b]);
    });
    group.evidence = EvidenceOf(findings[group.members.front()]);
    std::string first_key = findings[group.members.front()].key;
    std::vector<std::string> patterns;
    std::map<std::string, size_t> variables;
    std::set<std::string> locations, traces;
    for (size_t i : group.members) {
      const SummaryFinding& finding = findings[i];
      first_key = std::min(first_key, finding.key);
      if (std::find(patterns.begin(), patterns.end(), finding.pattern) == patterns.end())
        patterns.push_back(finding.pattern);
      for (const SummaryEvent& event : finding.events) {
        if (!event.variable.empty()) variables[event.variable]++;
        if (locations.insert(LocationKey(event.site)).second) group.sites.push_back(event.site);
      }
      traces.insert(finding.traces.begin(), finding.traces.end());
    }
    group.id = "bug-" + HexString(StableDigest(first_key) & 0xffffffffu, 8);
    group.traces = traces.size();
    for (const auto& [name, count] : variables)
      if (group.variable.empty() || count > variables[group.variable]) group.variable = name;
    for (size_t p = 0; p < patterns.size(); p++)
      group.title += (p == 0 ? "" : ", ") + PatternWords(patterns[p]);
    if (!group.variable.empty()) group.title += " on `" + group.variable + "`";
    groups.push_back(std::move(group));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const FindingGroup& a, const FindingGroup& b) {
    return a.evidence < b.evidence;
  });
  return groups;
}

nlohmann::json GroupsJson(const std::vector<FindingGroup>& groups,
                          const std::vector<SummaryFinding>& findings) {
  nlohmann::json array = nlohmann::json::array();
  for (const FindingGroup& group : groups) {
    nlohmann::json sites = nlohmann::json::array();
    for (const SummarySite& site : group.sites) sites.push_back(SiteJson(site));
    nlohmann::json members = nlohmann::json::array();
    for (size_t i : group.members) members.push_back(findings[i].id);
    array.push_back({{"id", group.id},
                     {"evidence", EvidenceName(group.evidence)},
                     {"title", group.title},
                     {"variable", group.variable},
                     {"sites", std::move(sites)},
                     {"traces", group.traces},
                     {"findings", std::move(members)}});
  }
  return array;
}

void MarkBugs(nlohmann::json& findings_json, const std::vector<FindingGroup>& groups) {
  for (const FindingGroup& group : groups)
    for (size_t i : group.members)
      if (i < findings_json.size()) findings_json[i]["bug"] = group.id;
}

}  // namespace pecan::workflow
