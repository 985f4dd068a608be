// JSON report writer and reader (see report_json.h), on nlohmann::json.
#include "analyzer/report_json.h"

#include <cstdio>
#include <fstream>
#include <ostream>

#include <nlohmann/json.hpp>

#include "trace_format/error.h"

namespace pecan {
namespace {

using nlohmann::json;

std::string Hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

json EventJson(const ReportEvent& event) {
  json locks = json::array();
  for (const ReportLock& lock : event.locks_held)
    locks.push_back(lock.read_mode ? lock.name + " (read)" : lock.name);
  return json{{"index", event.index},
              {"thread", "T" + std::to_string(event.thread)},
              {"thread_name", event.thread_name},
              {"kind", std::string(EventKindName(event.kind))},
              {"address", Hex(event.address)},
              {"size", event.size},
              {"variable", event.variable},
              {"locks_held", std::move(locks)},
              {"site",
               {{"id", event.site.key},
                {"text", event.site.text},
                {"function", event.site.source.function},
                {"file", event.site.source.file},
                {"line", event.site.source.line}}}};
}

json StatsJson(const AnalysisResult& result) {
  const AnalysisStats& stats = result.stats;
  json by_family = json::object();
  for (const auto& [family, seconds] : stats.seconds_by_family) by_family[family] = seconds;
  ReportSummary summary = Summarize(result);
  return json{{"events", stats.events},
              {"shared_locations", stats.shared_locations},
              {"candidates", stats.candidates},
              {"seconds_total", stats.seconds_total},
              {"seconds_by_family", std::move(by_family)},
              {"stopped_patterns", stats.stopped_patterns},
              {"pattern_work_bound", stats.pattern_work_bound},
              {"notices", StoppedPatternNotices(stats)},
              {"findings", summary.findings},
              {"races", summary.races},
              {"atomicity", summary.atomicity},
              {"asv", summary.asv},
              {"deadlocks", summary.deadlocks},
              {"other", summary.other},
              {"observed", summary.observed},
              {"predicted", summary.predicted}};
}

// Reader helpers: every failure becomes one PecanError naming the file and the JSON path.
class ReportParser {
 public:
  explicit ReportParser(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(const std::string& where, const std::string& what) const {
    throw PecanError(path_ + ": " + (where.empty() ? "" : where + ": ") + what);
  }

  const json& Member(const json& object, const char* key, const std::string& where) const {
    if (!object.is_object()) Fail(where, "expected an object");
    auto it = object.find(key);
    if (it == object.end()) Fail(where, std::string("missing \"") + key + "\"");
    return *it;
  }
  std::string String(const json& object, const char* key, const std::string& where,
                     bool required = true) const {
    if (!required && !object.contains(key)) return "";
    const json& value = Member(object, key, where);
    if (!value.is_string()) Fail(where + "." + key, "expected a string");
    return value.get<std::string>();
  }
  uint64_t Unsigned(const json& value, const std::string& where) const {
    if (!value.is_number_unsigned()) Fail(where, "expected a non-negative integer");
    return value.get<uint64_t>();
  }
  std::vector<EventIndex> Indices(const json& finding, const char* key, const std::string& where,
                                  bool required) const {
    std::vector<EventIndex> out;
    if (!required && !finding.contains(key)) return out;
    const json& list = Member(finding, key, where);
    if (!list.is_array()) Fail(where + "." + key, "expected an array");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string at = where + "." + key + "[" + std::to_string(i) + "]";
      out.push_back(Unsigned(Member(list[i], "index", at), at + ".index"));
    }
    return out;
  }

  Finding ParseFinding(const json& object, const std::string& where) const {
    Finding finding;
    finding.id = String(object, "id", where);
    finding.pattern = String(object, "pattern", where);
    finding.variant = String(object, "variant", where, false);
    finding.reason = String(object, "reason", where, false);
    if (object.contains("observed")) {
      if (!object["observed"].is_boolean()) Fail(where + ".observed", "expected true or false");
      finding.observed = object["observed"].get<bool>();
    }
    if (object.contains("witnesses"))
      finding.witnesses =
          static_cast<uint32_t>(Unsigned(object["witnesses"], where + ".witnesses"));
    finding.events = Indices(object, "events", where, true);
    if (finding.events.empty()) Fail(where + ".events", "a finding needs at least one event");
    if (object.contains("adjacent")) {
      if (!object["adjacent"].is_boolean()) Fail(where + ".adjacent", "expected true or false");
      finding.adjacent = object["adjacent"].get<bool>();
    } else {  // a 1.0 report: only the built-in race was adjacent
      finding.adjacent = finding.pattern == "race" && finding.events.size() == 2;
    }
    finding.overtaken = Indices(object, "overtaken", where, false);
    return finding;
  }

  LoadedReport Parse(const json& root) const {
    if (!root.is_object()) Fail("", "not a pecan JSON report (expected an object)");
    if (!root.contains("findings"))
      Fail("",
           "not a pecan JSON report (no \"findings\"; write one with "
           "`pecan analyze TRACE --format json -o FILE`)");
    if (root.contains("format")) {
      const json& format = root["format"];
      uint64_t major = Unsigned(Member(format, "major", "format"), "format.major");
      if (major > static_cast<uint64_t>(kJsonReportMajor))
        Fail("", "written by a newer pecan (report format " + std::to_string(major) +
                     "); this pecan reads " + std::to_string(kJsonReportMajor) + ".x");
    }
    LoadedReport report;
    report.trace_path = String(root, "trace", "", false);
    report.trace_hash = String(root, "trace_hash", "", false);
    report.program = String(root, "program", "", false);
    const json& findings = root["findings"];
    if (!findings.is_array()) Fail("findings", "expected an array");
    for (size_t i = 0; i < findings.size(); ++i)
      report.findings.push_back(ParseFinding(findings[i], "findings[" + std::to_string(i) + "]"));
    return report;
  }

 private:
  std::string path_;
};

}  // namespace

void WriteJsonReport(std::ostream& out, const Trace& trace, const AnalysisResult& result,
                     Symbolizer& symbolizer, const ReportOrigin& origin) {
  json findings = json::array();
  for (const ReportFinding& described : DescribeFindings(trace, result, symbolizer)) {
    const Finding& finding = *described.finding;
    json events = json::array();
    for (const ReportEvent& event : described.events) events.push_back(EventJson(event));
    json overtaken = json::array();
    for (const ReportEvent& event : described.overtaken) overtaken.push_back(EventJson(event));
    findings.push_back(json{{"id", finding.id},
                            {"pattern", finding.pattern},
                            {"variant", finding.variant},
                            {"observed", finding.observed},
                            {"adjacent", finding.adjacent},
                            {"reason", finding.reason},
                            {"witnesses", finding.witnesses},
                            {"events", std::move(events)},
                            {"overtaken", std::move(overtaken)}});
  }
  json report{{"format", {{"major", kJsonReportMajor}, {"minor", kJsonReportMinor}}},
              {"trace", origin.trace_path},
              {"trace_hash", origin.trace_hash},
              {"program", trace.meta.program},
              {"args", trace.meta.args},
              {"findings", std::move(findings)},
              {"stats", StatsJson(result)}};
  // Names from the program may hold any bytes: replace invalid UTF-8 instead of throwing.
  out << report.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

LoadedReport LoadJsonReport(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PecanError(path + ": cannot open the report");
  json root;
  try {
    root = json::parse(in);
  } catch (const json::parse_error& e) {
    throw PecanError(path + ": not valid JSON (byte " + std::to_string(e.byte) + ")");
  }
  return ReportParser(path).Parse(root);
}

std::vector<Finding> ReadJsonReport(const std::string& path) {
  return LoadJsonReport(path).findings;
}

}  // namespace pecan
