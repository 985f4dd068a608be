// SARIF 2.1.0 writer (see report_sarif.h).
#include "analyzer/report_sarif.h"

#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "trace_format/version.h"

namespace pecan {
namespace {

using nlohmann::json;

constexpr const char* kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";

// A URI reference for a path: absolute paths become file:// URIs; unsafe bytes are %-escaped.
std::string PathUri(const std::string& path) {
  std::string uri = path.starts_with('/') ? "file://" : "";
  for (unsigned char c : path) {
    bool safe = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (safe) {
      uri += static_cast<char>(c);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      uri += escaped;
    }
  }
  return uri;
}

struct RuleText {
  std::string name;
  std::string short_text;
  std::string full_text;
};

RuleText RuleFor(const std::string& pattern) {
  if (pattern == "race")
    return {"DataRace",
            "Data race: two threads access one location, at least one writes, and nothing "
            "orders them.",
            "Two accesses to the same memory location by different threads, at least one a "
            "write, that hold no common lock and are not ordered by fork/join, condition "
            "notification or release/acquire synchronization, so they can run back to back in "
            "either order."};
  if (pattern == "atomicity")
    return {"AtomicityViolation",
            "Atomicity violation: another thread's access can fall between two accesses of one "
            "atomic region.",
            "Two consecutive accesses to one location inside one atomic region (an outermost "
            "critical section) can be interleaved by another thread's access so that the "
            "triple (R-W-R, W-W-R, W-R-W or R-W-W) is not serializable."};
  if (pattern == "asv")
    return {"AtomicSetSerializabilityViolation",
            "Atomic-set serializability violation: another unit of work can interleave accesses "
            "to an atomic set.",
            "One of the eleven problematic interleavings of Vaziri, Tip and Dolby (POPL 2006): "
            "a unit of work (atomic region) touching one or two locations of an atomic set is "
            "interleaved by another unit of work's accesses to the same set."};
  if (pattern == "deadlock")
    return {"LockOrderDeadlock",
            "Lock-order deadlock: threads can each hold a lock the next one requests.",
            "A cycle of the lock-order graph (a thread acquires l2 while holding l1): every "
            "thread of the cycle can hold its lock and request the next one at the same time, "
            "because no fork/join, notify/wait or barrier orders the nested acquisitions and no "
            "common lock guards them; then they wait for each other forever."};
  return {pattern, "User-defined access-anomaly pattern '" + pattern + "'.",
          "A match of the user-defined access-anomaly pattern '" + pattern + "'."};
}

json Location(const ReportEvent& event, const ReportOrigin& origin, const Trace& trace) {
  json location = json::object();
  const ReportSite& site = event.site;
  if (!site.source.file.empty()) {
    json physical{{"artifactLocation", {{"uri", PathUri(site.source.file)}}}};
    if (site.source.line != 0) physical["region"] = {{"startLine", site.source.line}};
    location["physicalLocation"] = std::move(physical);
    if (!site.source.function.empty())
      location["logicalLocations"] =
          json::array({{{"name", site.source.function}, {"kind", "function"}}});
  } else if (site.is_std) {
    // The event's line in the STD file (comments and blank lines counted); a .pecan file
    // converted from STD no longer knows it, so that location names the file alone.
    if (!origin.trace_path.empty()) {
      json physical{{"artifactLocation", {{"uri", PathUri(origin.trace_path)}}}};
      if (event.trace_line != 0) physical["region"] = {{"startLine", event.trace_line}};
      location["physicalLocation"] = std::move(physical);
    }
    location["logicalLocations"] = json::array({{{"name", site.text}}});
  } else {
    json physical{
        {"address",
         {{"fullyQualifiedName", site.text},
          {"relativeAddress",
           site.id < trace.sites.size() ? static_cast<int64_t>(trace.sites[site.id].offset) : 0}}}};
    if (site.id < trace.sites.size()) {
      for (const ModuleInfo& module : trace.modules)
        if (module.id == trace.sites[site.id].module)
          physical["artifactLocation"] = {{"uri", PathUri(module.path)}};
    }
    location["physicalLocation"] = std::move(physical);
  }
  return location;
}

std::string EventText(const ReportEvent& event) {
  return event.thread_name + " " + AccessVerb(event.kind) + " '" + event.variable +
         "' here (event " + std::to_string(event.index) + "), holding " +
         LocksText(event.locks_held);
}

std::string ResultText(const ReportFinding& described) {
  const Finding& finding = *described.finding;
  std::string text = PatternTitle(finding.pattern) + " on ";
  for (size_t i = 0; i < described.variables.size(); ++i)
    text += (i ? (i + 1 == described.variables.size() ? " and '" : ", '") : "'") +
            described.variables[i] + "'";
  text += " [" + finding.pattern + (finding.variant.empty() ? "" : " " + finding.variant) + "]: ";
  if (finding.pattern == "deadlock") text += DeadlockCycleText(described);
  for (size_t i = 0; finding.pattern != "deadlock" && i < described.events.size(); ++i) {
    const ReportEvent& event = described.events[i];
    text += (i ? ", then " : "") + event.thread_name + " " + AccessVerb(event.kind) + " at " +
            event.site.where;
  }
  text += finding.observed ? ". Observed in the recorded order" : ". Predicted";
  if (!finding.reason.empty()) text += ": " + finding.reason;
  if (!text.ends_with('.')) text += ".";
  return text;
}

}  // namespace

void WriteSarifReport(std::ostream& out, const Trace& trace, const AnalysisResult& result,
                      Symbolizer& symbolizer, const ReportOrigin& origin) {
  json rules = json::array();
  std::vector<std::string> rule_ids;
  json results = json::array();
  for (const ReportFinding& described : DescribeFindings(trace, result, symbolizer)) {
    const Finding& finding = *described.finding;
    size_t rule_index = 0;
    while (rule_index < rule_ids.size() && rule_ids[rule_index] != finding.pattern) ++rule_index;
    if (rule_index == rule_ids.size()) {
      RuleText rule = RuleFor(finding.pattern);
      rule_ids.push_back(finding.pattern);
      rules.push_back({{"id", finding.pattern},
                       {"name", rule.name},
                       {"shortDescription", {{"text", rule.short_text}}},
                       {"fullDescription", {{"text", rule.full_text}}},
                       {"defaultConfiguration", {{"level", "warning"}}},
                       {"properties", {{"tags", json::array({"concurrency"})}}}});
    }
    json related = json::array();
    int related_id = 1;
    for (size_t i = 1; i < described.events.size(); ++i) {
      json location = Location(described.events[i], origin, trace);
      location["id"] = related_id++;
      location["message"] = {{"text", EventText(described.events[i])}};
      related.push_back(std::move(location));
    }
    for (const ReportEvent& event : described.overtaken) {
      json location = Location(event, origin, trace);
      location["id"] = related_id++;
      location["message"] = {{"text", "reordered around " + event.thread_name + "'s " +
                                          AccessNoun(event.kind) + " here (event " +
                                          std::to_string(event.index) + ")"}};
      related.push_back(std::move(location));
    }
    json primary = described.events.empty() ? json::object()
                                            : Location(described.events.front(), origin, trace);
    if (!described.events.empty())
      primary["message"] = {{"text", EventText(described.events.front())}};
    json event_indices = json::array();
    for (EventIndex index : finding.events) event_indices.push_back(trace.Origin(index));
    results.push_back({{"ruleId", finding.pattern},
                       {"ruleIndex", rule_index},
                       {"level", "warning"},
                       {"message", {{"text", ResultText(described)}}},
                       {"locations", json::array({std::move(primary)})},
                       {"relatedLocations", std::move(related)},
                       {"partialFingerprints", {{"pecanFindingId/v1", finding.id}}},
                       {"properties",
                        {{"findingId", finding.id},
                         {"pattern", finding.pattern},
                         {"variant", finding.variant},
                         {"observed", finding.observed},
                         {"witnesses", finding.witnesses},
                         {"events", std::move(event_indices)}}}});
  }
  ReportSummary summary = Summarize(result);
  json run{{"tool",
            {{"driver",
              {{"name", "pecan"},
               {"version", kVersionString},
               {"semanticVersion", kVersionString},
               {"rules", std::move(rules)}}}}},
           {"results", std::move(results)},
           {"properties",
            {{"trace", origin.trace_path},
             {"traceHash", origin.trace_hash},
             {"events", result.stats.events},
             {"summary", SummaryLine(summary)}}}};
  if (!origin.trace_path.empty())
    run["artifacts"] = json::array({{{"location", {{"uri", PathUri(origin.trace_path)}}},
                                     {"description", {{"text", "the analyzed trace"}}}}});
  json sarif{{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
  out << sarif.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

}  // namespace pecan
