#include "workflow/summary_sarif.h"

namespace pecan::workflow {

namespace {

// A path as a URI path: every byte but unreserved characters and '/' percent-encoded (RFC 3986).
std::string UriPath(const std::string& path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string uri;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri;
}

}  // namespace

std::string ResolveSourceRoot(const std::string& option) {
  namespace fs = std::filesystem;
  return (option.empty() ? fs::current_path() : fs::absolute(option)).lexically_normal().string();
}

nlohmann::json SarifArtifactLocation(const std::string& file, const std::string& source_root) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(file).lexically_normal();
  if (!path.is_absolute()) return {{"uri", UriPath(path.generic_string())}};
  auto below = [](const fs::path& child, const fs::path& root) -> std::string {
    if (root.empty()) return "";
    const fs::path relative = child.lexically_relative(root);
    if (relative.empty() || *relative.begin() == ".." || relative == ".") return "";
    return relative.generic_string();
  };
  fs::path root = fs::path(source_root).lexically_normal();
  if (!root.has_filename() && root.has_relative_path()) root = root.parent_path();  // "dir/"
  std::string relative = below(path, root);
  if (relative.empty()) {  // the same directories reached through symbolic links
    std::error_code error_file, error_root;
    const fs::path real_file = fs::weakly_canonical(path, error_file);
    const fs::path real_root = fs::weakly_canonical(root, error_root);
    if (!error_file && !error_root) relative = below(real_file, real_root);
  }
  if (!relative.empty()) return {{"uri", UriPath(relative)}, {"uriBaseId", kSourceRootBase}};
  return {{"uri", "file://" + UriPath(path.generic_string())}};
}

nlohmann::json SarifLog(const std::string& driver, nlohmann::json rules, nlohmann::json results,
                        const std::string& source_root) {
  std::string root_uri = "file://" + UriPath(std::filesystem::path(source_root).generic_string());
  if (root_uri.back() != '/') root_uri += '/';
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs",
           nlohmann::json::array(
               {{{"tool",
                  {{"driver",
                    {{"name", driver}, {"version", kVersionString}, {"rules", std::move(rules)}}}}},
                 {"originalUriBaseIds", {{kSourceRootBase, {{"uri", root_uri}}}}},
                 {"results", std::move(results)}}})}};
}

namespace {

nlohmann::json Location(const SummaryEvent& event, int id, const std::string& root) {
  nlohmann::json location{
      {"message", {{"text", event.thread_name + " " + event.kind + " " + event.site.text}}}};
  if (id >= 0) location["id"] = id;
  if (!event.site.file.empty()) {
    nlohmann::json physical{{"artifactLocation", SarifArtifactLocation(event.site.file, root)}};
    if (event.site.line != 0) physical["region"] = {{"startLine", event.site.line}};
    location["physicalLocation"] = std::move(physical);
  }
  if (!event.site.function.empty())
    location["logicalLocations"] =
        nlohmann::json::array({{{"name", event.site.function}, {"kind", "function"}}});
  return location;
}

std::string RuleDescription(const std::string& pattern) {
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

}  // namespace

nlohmann::json SummarySarif(const std::vector<SummaryFinding>& findings,
                            const std::string& source_root) {
  nlohmann::json rules = nlohmann::json::array();
  std::vector<std::string> rule_ids;
  nlohmann::json results = nlohmann::json::array();
  nlohmann::json refuted = nlohmann::json::array();
  // Variants of one bug share a fingerprint (pecanBug/v1), so a code-scanning tool can group them.
  std::vector<std::string> bug_of(findings.size());
  const std::vector<FindingGroup> groups = GroupFindings(findings);
  for (const FindingGroup& group : groups)
    for (size_t i : group.members) bug_of[i] = group.id;
  for (size_t index = 0; index < findings.size(); index++) {
    const SummaryFinding& finding = findings[index];
    if (finding.verdict.outcome == "infeasible") {
      refuted.push_back(finding.id);
      continue;
    }
    size_t rule_index = 0;
    while (rule_index < rule_ids.size() && rule_ids[rule_index] != finding.pattern) rule_index++;
    if (rule_index == rule_ids.size()) {
      rule_ids.push_back(finding.pattern);
      rules.push_back({{"id", finding.pattern},
                       {"shortDescription", {{"text", RuleDescription(finding.pattern)}}}});
    }
    const bool confirmed = finding.verdict.confirmed();
    const bool exposed = finding.verdict.outcome == "exposed";
    std::string text = finding.pattern + " " + finding.variant;
    text += confirmed                         ? " confirmed by replay"
            : exposed                         ? " predicted; its replay made the program fail"
            : finding.verdict.outcome.empty() ? " predicted (not replayed)"
                                              : " predicted; replay: " + finding.verdict.outcome;
    if (!finding.verdict.failure.empty())
      text += " (the program then failed: " + finding.verdict.failure + ")";
    text += "; seen in " + std::to_string(finding.traces.size()) + " trace(s)";
    nlohmann::json result{
        {"ruleId", finding.pattern},
        {"ruleIndex", rule_index},
        {"level", confirmed || exposed ? "error" : "warning"},
        {"message", {{"text", text}}},
        {"partialFingerprints", {{"pecanFinding/v1", finding.id}, {"pecanBug/v1", bug_of[index]}}},
        {"properties",
         {{"variant", finding.variant},
          {"verdict", finding.verdict.outcome.empty() ? "not replayed" : finding.verdict.outcome},
          {"traces", finding.traces.size()},
          {"witnesses", finding.witnesses},
          {"bug", bug_of[index]}}}};
    if (!finding.verdict.failure.empty()) result["properties"]["failure"] = finding.verdict.failure;
    nlohmann::json related = nlohmann::json::array();
    bool located = false;
    for (size_t e = 0; e < finding.events.size(); e++) {
      const SummaryEvent& event = finding.events[e];
      if (!located && !event.site.file.empty()) {
        result["locations"] = nlohmann::json::array({Location(event, -1, source_root)});
        located = true;
      }
      related.push_back(Location(event, static_cast<int>(e), source_root));
    }
    if (!located) result["locations"] = nlohmann::json::array();
    result["relatedLocations"] = std::move(related);
    results.push_back(std::move(result));
  }
  nlohmann::json log = SarifLog("pecan", std::move(rules), std::move(results), source_root);
  log["runs"][0]["properties"] = {{"refutedByReplay", std::move(refuted)}};
  return log;
}

}  // namespace pecan::workflow
