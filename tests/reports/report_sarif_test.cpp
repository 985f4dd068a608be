// The SARIF 2.1.0 report, checked by hand against the properties the spec requires
// (no network, so no schema download): version, $schema, runs[].tool.driver.name and rules,
// results[].ruleId/ruleIndex/message/locations, relatedLocations with ids.
#include <catch2/catch.hpp>

#include <link.h>
#include <unistd.h>

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

}  // namespace

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
  char exe[4096] = {};
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  REQUIRE(n > 0);
  // Sites are return addresses (the symbolizer looks one byte back): point just past the entry.
  uint64_t offset = reinterpret_cast<uint64_t>(&MarkerFunction) - MainExecutableBase() + 1;
  CHECK(MarkerFunction(1) == 4);
  Trace trace;
  trace.modules.push_back(ModuleInfo{1, exe, MainExecutableBase(), ""});
  trace.modules.push_back(ModuleInfo{2, "/nonexistent/libgone.so", 0x7f0000000000, ""});
  trace.sites = {SiteInfo{1, offset}, SiteInfo{2, 0x1234}};
  trace.threads = {ThreadInfo{}, ThreadInfo{0, 0, "T1"}};
  trace.push_back(Event{0, EventKind::kWrite, 0, 4, 0x5000, 0});
  trace.push_back(Event{1, EventKind::kRead, 0, 4, 0x5000, 1});
  AnalysisResult result;
  Finding race;
  race.id = "race-3";
  race.pattern = "race";
  race.variant = "W-R";
  race.events = {0, 1};
  result.findings = {race};

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
