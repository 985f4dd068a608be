// The SARIF 2.1.0 report: validated against the official OASIS schema (data/, with
// validate_sarif.py) for recorded, STD and commented STD traces, and checked by hand for what the
// schema cannot say (ruleIndex points at ruleId, ids distinct, lines point at the STD file).
#include <catch2/catch.hpp>

#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report_fixture.h"
#include "trace_format/std_format.h"

using namespace pecan;
using namespace pecan::test;
using nlohmann::json;

namespace {

void CheckPhysicalLocation(const json& physical, const std::string& where,
                           std::vector<std::string>& problems) {
  if (!physical.is_object()) return problems.push_back(where + ": physicalLocation not an object");
  bool has_artifact = physical.contains("artifactLocation");
  bool has_address = physical.contains("address");
  if (!has_artifact && !has_address)
    problems.push_back(where + ": physicalLocation needs artifactLocation or address");
  if (has_artifact) {
    const json& uri = physical["artifactLocation"]["uri"];
    if (!uri.is_string() || uri.get<std::string>().empty())
      problems.push_back(where + ": artifactLocation.uri missing");
    else if (uri.get<std::string>().find(' ') != std::string::npos)
      problems.push_back(where + ": artifactLocation.uri is not a URI (space)");
  }
  if (physical.contains("region")) {
    const json& line = physical["region"]["startLine"];
    if (!line.is_number_integer() || line.get<int64_t>() < 1)
      problems.push_back(where + ": region.startLine must be an integer >= 1");
  }
}

// Everything the SARIF 2.1.0 spec requires of the parts we write.
std::vector<std::string> SarifProblems(const json& sarif) {
  std::vector<std::string> problems;
  if (sarif.value("version", "") != "2.1.0") problems.push_back("version is not 2.1.0");
  if (!sarif.contains("$schema") || !sarif["$schema"].is_string())
    problems.push_back("$schema missing");
  if (!sarif.contains("runs") || !sarif["runs"].is_array() || sarif["runs"].empty()) {
    problems.push_back("runs missing");
    return problems;
  }
  for (const json& run : sarif["runs"]) {
    const json& driver = run["tool"]["driver"];
    if (!driver.contains("name") || !driver["name"].is_string())
      problems.push_back("tool.driver.name missing");
    std::vector<std::string> rule_ids;
    json rules = driver.value("rules", json::array());
    for (const json& rule : rules) {
      if (!rule.contains("id") || !rule["id"].is_string())
        problems.push_back("rule without id");
      else
        rule_ids.push_back(rule["id"]);
      if (!rule.contains("shortDescription")) problems.push_back("rule without shortDescription");
    }
    if (std::set<std::string>(rule_ids.begin(), rule_ids.end()).size() != rule_ids.size())
      problems.push_back("duplicate rule ids");
    json results = run.value("results", json::array());
    for (size_t r = 0; r < results.size(); ++r) {
      const json& result = results[r];
      std::string at = "results[" + std::to_string(r) + "]";
      std::string rule_id = result.value("ruleId", "");
      auto found = std::find(rule_ids.begin(), rule_ids.end(), rule_id);
      if (found == rule_ids.end())
        problems.push_back(at + ": ruleId not among the rules");
      else if (result.value("ruleIndex", -1) != found - rule_ids.begin())
        problems.push_back(at + ": ruleIndex does not point at ruleId");
      if (result["message"].value("text", "").empty()) problems.push_back(at + ": no message");
      std::string level = result.value("level", "warning");
      if (level != "none" && level != "note" && level != "warning" && level != "error")
        problems.push_back(at + ": bad level");
      if (!result["locations"].is_array() || result["locations"].empty())
        problems.push_back(at + ": no locations");
      for (const json& location : result["locations"])
        CheckPhysicalLocation(location["physicalLocation"], at + ".locations", problems);
      std::set<int64_t> ids;
      json related_locations = result.value("relatedLocations", json::array());
      for (const json& related : related_locations) {
        if (!related["id"].is_number_integer() || related["id"].get<int64_t>() < 0 ||
            !ids.insert(related["id"].get<int64_t>()).second)
          problems.push_back(at + ": relatedLocations ids must be distinct integers >= 0");
        if (related["message"].value("text", "").empty())
          problems.push_back(at + ": related location without message");
        CheckPhysicalLocation(related["physicalLocation"], at + ".relatedLocations", problems);
      }
      json fingerprints = result.value("partialFingerprints", json::object());
      for (const auto& [key, value] : fingerprints.items())
        if (!value.is_string()) problems.push_back(at + ": fingerprint " + key + " not a string");
    }
  }
  return problems;
}

__attribute__((noinline)) int MarkerFunction(int x) {
  return x * 3 + 1;
}

// The load address of the main executable (PIE), so a code address becomes a module offset.
uint64_t MainExecutableBase() {
  uint64_t base = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        *static_cast<uint64_t*>(data) = info->dlpi_addr;
        return 1;  // the first object is the executable
      },
      &base);
  return base;
}

// A recorded-style trace: one module whose site resolves to a line of this file, one module
// that is gone (an address location), a race between them.
struct RecordedStyle {
  Trace trace;
  AnalysisResult result;
};
RecordedStyle RecordedStyleTrace() {
  char exe[4096] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  // Sites are return addresses (the symbolizer looks one byte back): point just past the entry.
  uint64_t offset = reinterpret_cast<uint64_t>(&MarkerFunction) - MainExecutableBase() + 1;
  CHECK(MarkerFunction(1) == 4);
  RecordedStyle r;
  r.trace.modules.push_back(ModuleInfo{1, exe, MainExecutableBase(), ""});
  r.trace.modules.push_back(ModuleInfo{2, "/nonexistent/libgone.so", 0x7f0000000000, ""});
  r.trace.sites = {SiteInfo{1, offset}, SiteInfo{2, 0x1234}};
  r.trace.threads = {ThreadInfo{}, ThreadInfo{0, 0, "T1"}};
  r.trace.push_back(Event{0, EventKind::kWrite, 0, 4, 0x5000, 0});
  r.trace.push_back(Event{1, EventKind::kRead, 0, 4, 0x5000, 1});
  Finding race;
  race.id = "race-3";
  race.pattern = "race";
  race.variant = "W-R";
  race.events = {0, 1};
  r.result.findings = {race};
  return r;
}

// Runs validate_sarif.py on `sarif`: its exit status (0 valid, 1 invalid) and what it printed.
std::pair<int, std::string> ValidateAgainstSchema(const std::string& sarif,
                                                  const std::string& tag) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("pecan_sarif_schema_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / (tag + ".sarif")).string();
  const std::string output = (dir / (tag + ".out")).string();
  std::ofstream(file) << sarif;
  const std::string command = std::string("'") + PECAN_PYTHON3 + "' '" + PECAN_SARIF_VALIDATOR +
                              "' '" + PECAN_SARIF_SCHEMA + "' '" + file + "' >'" + output +
                              "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(output);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove_all(dir);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

// A SARIF log for a trace analyzed for real (all built-in patterns).
std::string AnalyzedSarif(const Trace& trace, const std::string& trace_path) {
  AnalysisOptions options;
  options.threads = 1;
  return SarifReport(trace, Analyze(trace, options), trace_path);
}

}  // namespace

TEST_CASE("sarif report validates against the OASIS SARIF 2.1.0 schema", "[sarif][schema]") {
  // Every kind of location pecan writes: symbolized source lines with function names (recorded),
  // an address in a module without debug info, STD sites at lines of the trace file (with
  // logical names), STD labels that name source files, related and overtaken locations, rules
  // with full descriptions, fingerprints, property bags and the run's artifacts.
  std::vector<std::pair<std::string, std::string>> logs;
  RecordedStyle recorded = RecordedStyleTrace();
  logs.emplace_back("recorded", SarifReport(recorded.trace, recorded.result, "/tmp/run.pecan"));
  logs.emplace_back("fixture",
                    SarifReport(FixtureTrace(), FixtureResult(), "/tmp/my traces/f.std"));
  logs.emplace_back("no-trace-path", SarifReport(FixtureTrace(), FixtureResult(), ""));
  {
    std::ifstream in(std::string(PECAN_SOURCE_DIR) + "/examples/traces/figure1.std");
    REQUIRE(in);
    const Trace figure1 = ImportStd(in, "figure1.std");
    logs.emplace_back("figure1", AnalyzedSarif(figure1, "examples/traces/figure1.std"));
    CHECK(json::parse(logs.back().second)["runs"][0]["results"].size() == 3);
  }
  {
    std::istringstream in(
        "T0|fork(T1)|main.c:3\nT0|acq(m)|main.c:4\nT0|r(x)|main.c:5\n"
        "T0|w(x)|main.c:6\nT0|rel(m)|main.c:7\nT1|w(x)|worker.c:9\n");
    const Trace labels = ImportStd(in, "labels.std");
    logs.emplace_back("labels", AnalyzedSarif(labels, "labels.std"));
    CHECK(json::parse(logs.back().second)["runs"][0]["results"].size() >= 2);
  }
  for (const auto& [tag, sarif] : logs) {
    INFO(tag << "\n" << sarif);
    const auto [status, output] = ValidateAgainstSchema(sarif, tag);
    INFO(output);
    CHECK(status == 0);
  }

  // The validator rejects what the schema forbids: each broken copy on its own.
  const json valid = json::parse(logs[1].second);
  std::vector<std::pair<std::string, json>> broken;
  broken.emplace_back("no-version", valid);
  broken.back().second.erase("version");
  broken.emplace_back("bad-level", valid);
  broken.back().second["runs"][0]["results"][0]["level"] = "severe";
  broken.emplace_back("line-0", valid);
  broken.back()
      .second["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
      0;
  broken.emplace_back("unknown-property", valid);
  broken.back().second["runs"][0]["results"][0]["confidence"] = "high";
  broken.emplace_back("message-without-text", valid);
  broken.back().second["runs"][0]["results"][0]["message"] = json::object();
  for (const auto& [tag, document] : broken) {
    INFO(tag);
    const auto [status, output] = ValidateAgainstSchema(document.dump(2), tag);
    INFO(output);
    CHECK(status == 1);
    CHECK_FALSE(output.empty());
  }
}

TEST_CASE("sarif report: STD events point at their line of a commented trace file", "[sarif]") {
  // Comments and blank lines before and between the events: line = file line, not event + 1.
  const std::string text =
      "# two writes of x\n"
      "# by two threads\n"
      "\n"
      "T0|w(x)|1\n"
      "# T1 comes next\n"
      "\n"
      "T1|w(x)|2\n";
  std::istringstream in(text);
  const Trace trace = ImportStd(in, "commented.std");
  REQUIRE(trace.source_line == std::vector<uint32_t>{4, 7});
  const json sarif = json::parse(AnalyzedSarif(trace, "commented.std"));
  const json& result = sarif["runs"][0]["results"][0];
  CHECK(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "commented.std");
  CHECK(result["locations"][0]["physicalLocation"]["region"]["startLine"] == 4);
  CHECK(result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 7);
  CHECK(ValidateAgainstSchema(sarif.dump(), "commented").first == 0);

  // A .pecan file converted from STD keeps the sites but not the lines: no region then.
  Trace converted = trace;
  converted.source_line.clear();
  const json without = json::parse(AnalyzedSarif(converted, "converted.pecan"));
  const json& physical = without["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
  CHECK(physical["artifactLocation"]["uri"] == "converted.pecan");
  CHECK_FALSE(physical.contains("region"));
  CHECK(without["runs"][0]["results"][0]["locations"][0]["logicalLocations"][0]["name"] == "loc 1");
  // Without a trace path (the library called directly) an STD site has its logical name only.
  const json nameless = json::parse(AnalyzedSarif(trace, ""));
  CHECK_FALSE(nameless["runs"][0]["results"][0]["locations"][0].contains("physicalLocation"));
}

TEST_CASE("sarif report satisfies the spec's required properties") {
  json sarif = json::parse(SarifReport(FixtureTrace(), FixtureResult()));
  std::vector<std::string> problems = SarifProblems(sarif);
  INFO(sarif.dump(2));
  CHECK(problems == std::vector<std::string>{});
  // The checker itself catches a broken document.
  json broken = sarif;
  broken["runs"][0]["results"][0]["ruleIndex"] = 7;
  broken["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0;
  broken.erase("version");
  CHECK(SarifProblems(broken).size() == 3);
}

TEST_CASE("sarif report: rules, results, locations of STD sites, related locations") {
  json sarif = json::parse(SarifReport(FixtureTrace(), FixtureResult(), "/tmp/my traces/f.std"));
  const json& run = sarif["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "pecan");
  const json& rules = run["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == 2);
  CHECK(rules[0]["id"] == "race");
  CHECK(rules[1]["id"] == "atomicity");
  REQUIRE(run["results"].size() == 2);

  const json& race = run["results"][0];
  CHECK(race["ruleId"] == "race");
  CHECK(race["level"] == "warning");
  CHECK(race["partialFingerprints"]["pecanFindingId/v1"] == "race-00000001");
  std::string message = race["message"]["text"];
  CHECK(message.find("data race on 'counter' [race W-W]") == 0);
  CHECK(message.find("Observed in the recorded order") != std::string::npos);
  // STD sites point into the trace file at the event's line, named "loc N" logically.
  const json& primary = race["locations"][0];
  CHECK(primary["physicalLocation"]["artifactLocation"]["uri"] == "file:///tmp/my%20traces/f.std");
  CHECK(primary["physicalLocation"]["region"]["startLine"] == 4);  // event 3
  CHECK(primary["logicalLocations"][0]["name"] == "loc 4");
  REQUIRE(race["relatedLocations"].size() == 1);
  CHECK(race["relatedLocations"][0]["message"]["text"] ==
        "T1 writes 'counter' here (event 5), holding no lock");
  CHECK(race["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 6);

  const json& atomicity = run["results"][1];
  CHECK(atomicity["ruleIndex"] == 1);
  // Two other events and one overtaken event.
  CHECK(atomicity["relatedLocations"].size() == 3);
  CHECK(atomicity["properties"]["observed"] == false);
  CHECK(atomicity["properties"]["events"] == json::array({2, 5, 3}));
}

TEST_CASE("sarif report: STD labels of the form file:line become file locations") {
  std::string std_text =
      "T0|w(x)|src/a.c:10\n"
      "T1|w(x)|src/b.c:20\n";
  std::istringstream in(std_text);
  Trace trace = ImportStd(in, "labels.std");
  AnalysisResult result;
  Finding race;
  race.id = "race-2";
  race.pattern = "race";
  race.variant = "W-W";
  race.events = {0, 1};
  result.findings = {race};
  json sarif = json::parse(SarifReport(trace, result));
  CHECK(SarifProblems(sarif).empty());
  const json& physical = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
  CHECK(physical["artifactLocation"]["uri"] == "src/a.c");
  CHECK(physical["region"]["startLine"] == 10);
}

TEST_CASE("sarif and text: recorded sites resolve to the source file and line") {
  // A one-module trace whose sites point into this test executable.
  RecordedStyle recorded = RecordedStyleTrace();
  const Trace& trace = recorded.trace;
  const AnalysisResult& result = recorded.result;

  json sarif = json::parse(SarifReport(trace, result));
  CHECK(SarifProblems(sarif).empty());
  const json& result_json = sarif["runs"][0]["results"][0];
  const json& physical = result_json["locations"][0]["physicalLocation"];
  std::string uri = physical["artifactLocation"]["uri"];
  CHECK(uri.ends_with("report_sarif_test.cpp"));
  CHECK(physical["region"]["startLine"].get<int>() > 0);
  CHECK(result_json["locations"][0]["logicalLocations"][0]["kind"] == "function");
  // The missing module cannot be symbolized: an address location, no line.
  const json& other = result_json["relatedLocations"][0]["physicalLocation"];
  CHECK(other["address"]["relativeAddress"] == 0x1234);
  CHECK(other["artifactLocation"]["uri"] == "file:///nonexistent/libgone.so");
  CHECK_FALSE(other.contains("region"));

  std::string text = TextReport(trace, result);
  INFO(text);
  CHECK(text.find("report_sarif_test.cpp:") != std::string::npos);
  CHECK(text.find("libgone.so+0x1234") != std::string::npos);
}
