// pecan heal (AtomRace's healing): counter_race's lost updates disappear when its race, from an
// analyze report or a fuzz.json, is healed; a correct program with locks and condition
// variables healed on a variable it protects still ends normally; bad input is one line and
// exit status 2.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "analyzer/symbolizer.h"
#include "e2e_support.h"
#include "trace_format/trace_reader.h"

namespace {

// "healing engaged N times" in `output`; -1 when absent.
long EngagedCount(const std::string& output) {
  std::smatch match;
  static const std::regex engaged("healing engaged ([0-9]+) times");
  return std::regex_search(output, match, engaged) ? std::stol(match[1]) : -1;
}

// Records `program` into dir/NAME.pecan (a few tries until the analysis names a race on
// `variable`, when `variable` is not empty) and returns the analyze report's path.
std::string RecordAndAnalyze(const std::string& dir, const std::string& program,
                             const std::string& variable) {
  const std::string trace = dir + "/run.pecan";
  const std::string report = dir + "/analysis.json";
  for (int attempt = 0; attempt < 5; ++attempt) {
    e2e::RunPecan({"record", "-q", "-o", trace, "--", program}, dir + "/record.log", 120);
    const e2e::PecanRun analyzed = e2e::RunPecan(
        {"analyze", trace, "--format", "json", "-o", report}, dir + "/analyze.log", 120);
    INFO(analyzed.output);
    REQUIRE(e2e::ExitStatus(analyzed.result) <= 1);
    if (variable.empty()) return report;
    const nlohmann::json analysis = e2e::ReadJson(report);
    for (const auto& finding : analysis["findings"]) {
      if (finding["pattern"] != "race") continue;
      for (const auto& event : finding["events"])
        if (event["variable"] == variable) return report;
    }
  }
  FAIL("no race on " + variable + " in 5 recorded runs");
  return "";
}

// A fuzz.json whose one run has races between every pair of the instructions (module +
// offset) that accessed the global `variable` in the trace.
nlohmann::json FuzzJsonForVariable(const std::string& trace_path, const std::string& variable) {
  const pecan::Trace trace = pecan::ReadTrace(trace_path);
  pecan::Symbolizer symbolizer(trace);
  std::set<pecan::SiteId> sites;
  for (size_t e = 0; e < trace.kind.size(); ++e) {
    if (!pecan::IsPlainAccess(trace.kind[e]) || sites.count(trace.site[e])) continue;
    if (symbolizer.NameOfAddress(trace.addr[e]) == variable) sites.insert(trace.site[e]);
  }
  std::vector<nlohmann::json> accesses;
  for (pecan::SiteId id : sites) {
    const pecan::SiteInfo& site = trace.sites.at(id);
    for (const pecan::ModuleInfo& module : trace.modules) {
      if (module.id != site.module) continue;
      char offset[32];
      std::snprintf(offset, sizeof(offset), "0x%llx", static_cast<unsigned long long>(site.offset));
      accesses.push_back(
          {{"thread", "T1"},
           {"kind", "write"},
           {"site",
            {{"text", symbolizer.Describe(id)}, {"module", module.path}, {"offset", offset}}},
           {"variable", variable},
           {"size", 4}});
    }
  }
  REQUIRE(!accesses.empty());
  nlohmann::json races = nlohmann::json::array();
  for (size_t i = 0; i < accesses.size(); ++i)
    for (size_t j = i; j < accesses.size(); ++j)
      races.push_back({{"first", accesses[i]}, {"second", accesses[j]}});
  return {{"runs", nlohmann::json::array({{{"seed", 0}, {"races", races}}})}};
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// The counter_race recording and analysis, made once for the test cases that need one.
const std::string& CounterReport() {
  static const std::string report = [] {
    const std::string dir = e2e::FreshDirectory("heal-counter-race-" + std::to_string(getpid()));
    return RecordAndAnalyze(dir, e2e::TestProgram("counter_race"), "counter");
  }();
  return report;
}

}  // namespace

TEST_CASE("pecan heal keeps counter_race's updates from an analyze report", "[e2e][heal]") {
  const std::string report = CounterReport();
  const std::string dir = e2e::FreshDirectory("heal-counter-analyze");
  for (int run = 0; run < 20; ++run) {
    const e2e::PecanRun healed =
        e2e::RunPecan({"heal", report, "--", e2e::TestProgram("counter_race")},
                      dir + "/heal-" + std::to_string(run) + ".log", 60);
    INFO("run " << run << ": " << healed.output);
    CHECK(e2e::ExitStatus(healed.result) == 0);
    CHECK_THAT(healed.output, Catch::Contains("counter 40000"));
    CHECK(EngagedCount(healed.output) > 0);
    CHECK_THAT(healed.output, Catch::Contains("counter_race.c:15"));
  }
}

TEST_CASE("pecan heal takes one finding with --race and a fuzz.json's races", "[e2e][heal]") {
  const std::string report = CounterReport();
  const std::string dir = e2e::FreshDirectory("heal-counter-fuzz");
  const nlohmann::json analysis = e2e::ReadJson(report);
  std::string race_id;
  for (const auto& finding : analysis["findings"])
    if (finding["pattern"] == "race" && race_id.empty()) race_id = finding["id"];
  REQUIRE(!race_id.empty());
  const e2e::PecanRun one =
      e2e::RunPecan({"heal", "--race", race_id, report, "--", e2e::TestProgram("counter_race")},
                    dir + "/one.log", 60);
  INFO(one.output);
  CHECK(e2e::ExitStatus(one.result) == 0);
  CHECK(EngagedCount(one.output) > 0);

  const std::string fuzz_json = dir + "/fuzz.json";
  WriteFile(fuzz_json,
            FuzzJsonForVariable(analysis["trace"].get<std::string>(), "counter").dump(2));
  for (int run = 0; run < 5; ++run) {
    const e2e::PecanRun healed =
        e2e::RunPecan({"heal", fuzz_json, "--", e2e::TestProgram("counter_race")},
                      dir + "/heal-" + std::to_string(run) + ".log", 60);
    INFO("run " << run << ": " << healed.output);
    CHECK(e2e::ExitStatus(healed.result) == 0);
    CHECK_THAT(healed.output, Catch::Contains("counter 40000"));
    CHECK(EngagedCount(healed.output) > 0);
  }
}

TEST_CASE("pecan heal on a correct program with locks and condition variables ends normally",
          "[e2e][heal]") {
  const std::string dir = e2e::FreshDirectory("heal-condvar-queue");
  const std::string program = e2e::TestProgram("condvar_queue_correct");
  const std::string report = RecordAndAnalyze(dir, program, "");
  const std::string fuzz_json = dir + "/fuzz.json";
  WriteFile(
      fuzz_json,
      FuzzJsonForVariable(e2e::ReadJson(report)["trace"].get<std::string>(), "count").dump(2));
  for (int run = 0; run < 5; ++run) {
    const e2e::PecanRun healed = e2e::RunPecan({"heal", fuzz_json, "--", program},
                                               dir + "/heal-" + std::to_string(run) + ".log", 30);
    INFO("run " << run << ": " << healed.output);
    CHECK(e2e::ExitStatus(healed.result) == 0);
    CHECK(EngagedCount(healed.output) > 0);
    CHECK_THAT(healed.output, Catch::Contains("gave up 0 times"));
  }
}

TEST_CASE("pecan heal rejects bad input in one line with exit status 2", "[e2e][heal]") {
  const std::string dir = e2e::FreshDirectory("heal-bad-input");
  const std::string program = e2e::TestProgram("counter_race");
  WriteFile(dir + "/not.json", "this is not json\n");
  WriteFile(dir + "/no-race.json",
            R"({"trace": "/nonexistent.pecan", "findings": [{"id": "D1", "pattern": "deadlock",
                "events": []}]})");
  nlohmann::json gone = e2e::ReadJson(CounterReport());
  gone["trace"] = dir + "/gone.pecan";
  WriteFile(dir + "/gone.json", gone.dump());
  struct Case {
    std::vector<std::string> arguments;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"heal", dir + "/missing.json", "--", program}, "cannot read the report"},
      {{"heal", dir + "/not.json", "--", program}, "is not a JSON report"},
      {{"heal", dir + "/no-race.json", "--", program}, "holds no race"},
      {{"heal", dir + "/gone.json", "--", program}, "is gone"},
      {{"heal", "--race", "R999", CounterReport(), "--", program}, "has no race finding R999"},
      {{"heal", CounterReport(), "--", "/bin/true"}, "was not built for pecan"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const e2e::PecanRun run =
        e2e::RunPecan(cases[i].arguments, dir + "/case-" + std::to_string(i) + ".log", 30);
    INFO(run.output);
    CHECK(e2e::ExitStatus(run.result) == 2);
    CHECK_THAT(run.output, Catch::Contains(cases[i].message));
    CHECK_THAT(run.output, Catch::StartsWith("pecan: error: heal: "));
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
  }
}
