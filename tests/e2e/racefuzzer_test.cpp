// pecan fuzz --strategy racefuzzer on the RaceFuzzer paper's worked examples (Sen, PLDI 2008),
// in C: Figure 2's race is created in every run and its error reached in about half, however
// many statements come first; Figure 1's real race on z is created and the apparent one on x
// never is. Runs are functions of their seeds, so these counts are the same on every machine.
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

struct Fuzzed {
  e2e::PecanRun run;
  nlohmann::json summary;
};

Fuzzed Fuzz(const std::string& out, const std::vector<std::string>& options,
            const std::vector<std::string>& program) {
  std::vector<std::string> arguments = {"fuzz", "-o", out};
  arguments.insert(arguments.end(), options.begin(), options.end());
  arguments.push_back("--");
  arguments.insert(arguments.end(), program.begin(), program.end());
  Fuzzed fuzzed;
  fuzzed.run = e2e::RunPecan(arguments, out + ".log", 300);
  fuzzed.summary = e2e::ReadJson(out + "/fuzz.json");
  return fuzzed;
}

// The racing pair of `summary` whose statements are on these two lines.
nlohmann::json Target(const nlohmann::json& summary, int line_a, int line_b) {
  for (const auto& target : summary["races"]) {
    const std::string where = target["statements"];
    const std::string a = ".c:" + std::to_string(line_a), b = ".c:" + std::to_string(line_b);
    if (where.find(a) != std::string::npos && where.find(b) != std::string::npos) return target;
  }
  return nullptr;
}

std::set<int> RaceLines(const nlohmann::json& race) {
  return {race["first"]["site"]["line"].get<int>(), race["second"]["site"]["line"].get<int>()};
}

}  // namespace

TEST_CASE(
    "RaceFuzzer Figure 2: the race at statements 8 and 10 is created in every run and the "
    "error reached in about half, whatever the number of statements before 8",
    "[e2e][fuzz][racefuzzer]") {
  const std::string dir = e2e::FreshDirectory("racefuzzer-figure2");
  const std::string program = e2e::TestProgram("racefuzzer_figure2");
  std::vector<int> failed;
  for (const char* statements : {"10", "1000", "100000"}) {
    INFO("statements before 8: " << statements);
    const Fuzzed fuzzed = Fuzz(dir + "/rf-" + statements,
                               {"--strategy", "racefuzzer", "--runs", "40"}, {program, statements});
    INFO(fuzzed.run.output);
    CHECK(e2e::ExitStatus(fuzzed.run.result) == 1);
    REQUIRE(fuzzed.summary["races"].size() == 1);
    const nlohmann::json target = Target(fuzzed.summary, 24, 31);
    REQUIRE(target.is_object());
    CHECK(target["runs"] == 40);
    CHECK(target["runs_with_real_race"] == 40);
    const int failures = target["runs_failed"];
    CHECK(failures >= 8);
    CHECK(failures <= 32);
    failed.push_back(failures);
    for (const auto& run : fuzzed.summary["runs"]) {
      REQUIRE(run["races"].size() >= 1);
      const nlohmann::json& race = run["races"][0];
      CHECK(RaceLines(race) == std::set<int>{24, 31});
      CHECK(race["first"]["variable"] == "x");
      CHECK(race["first"]["address"] == race["second"]["address"]);
      CHECK(race["first"]["thread"] != race["second"]["thread"]);
      // ERROR is reached exactly when the read of x went first.
      const bool read_first = race["first"]["kind"] == "read";
      CHECK((run["outcome"] == "failed") == read_first);
      if (run["outcome"] == "failed") {
        CHECK(run["failure"]["kind"] == "assertion");
        CHECK_THAT(run["failure"]["site"].get<std::string>(),
                   Catch::Contains("racefuzzer_figure2.c:25"));
      }
    }
  }
  // A random scheduler almost never brings the two accesses together in that order.
  const Fuzzed random =
      Fuzz(dir + "/random", {"--strategy", "random", "--runs", "40"}, {program, "1000"});
  CHECK(random.summary["counts"]["failed"].get<int>() < failed[1]);
}

TEST_CASE(
    "RaceFuzzer Figure 1: the real race on z is created in every run that targets it, "
    "the apparent race on x never",
    "[e2e][fuzz][racefuzzer]") {
  const std::string dir = e2e::FreshDirectory("racefuzzer-figure1");
  const Fuzzed fuzzed = Fuzz(dir + "/rf", {"--strategy", "racefuzzer", "--runs", "80"},
                             {e2e::TestProgram("racefuzzer_figure1")});
  INFO(fuzzed.run.output);
  REQUIRE(fuzzed.summary["races"].size() == 2);
  // z: statements 5 (line 26) and 7 (line 34).
  const nlohmann::json z = Target(fuzzed.summary, 26, 34);
  REQUIRE(z.is_object());
  CHECK(z["runs"] == 40);
  CHECK(z["runs_with_real_race"] == 40);
  CHECK(z["runs_failed"].get<int>() >= 8);
  CHECK(z["runs_failed"].get<int>() <= 32);
  // x: statements 1 (line 22) and 10 (line 37), ordered through y: no real race. (ERROR1 is
  // reached in those runs too: thread1 waits at statement 1 until thread2 has set z.)
  const nlohmann::json x = Target(fuzzed.summary, 22, 37);
  REQUIRE(x.is_object());
  CHECK(x["runs"] == 40);
  CHECK(x["runs_with_real_race"] == 0);
  for (const auto& run : fuzzed.summary["runs"]) {
    for (const auto& race : run["races"]) CHECK(RaceLines(race) == std::set<int>{26, 34});
    if (run["outcome"] == "failed") {
      CHECK_THAT(run["failure"]["message"].get<std::string>(), Catch::Contains("ERROR1"));
    }
  }
  // A failing run's clip fails the same way again.
  for (const auto& run : fuzzed.summary["runs"]) {
    if (run["outcome"] != "failed") continue;
    const e2e::PecanRun replay = e2e::RunPecan({"replay", "--json", run["clip"].get<std::string>(),
                                                "--", e2e::TestProgram("racefuzzer_figure1")},
                                               dir + "/replay.log", 60);
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["failure"] == "assertion");
    break;
  }
}

TEST_CASE("pecan fuzz --strategy racefuzzer takes its races from a report and one of them by id",
          "[e2e][fuzz][racefuzzer]") {
  const std::string dir = e2e::FreshDirectory("racefuzzer-report");
  const std::string program = e2e::TestProgram("racefuzzer_figure1");
  const std::string trace = dir + "/run.pecan";
  REQUIRE(e2e::ExitStatus(
              e2e::RunPecan({"record", "-o", trace, "--", program}, dir + "/record.log").result) ==
          0);
  const std::string report = dir + "/report.json";
  REQUIRE(e2e::ExitStatus(e2e::RunPecan({"analyze", "--patterns", "race", "--format", "json", "-o",
                                         report, trace},
                                        dir + "/analyze.log")
                              .result) == 0);
  std::string z_id;
  const nlohmann::json findings = e2e::ReadJson(report)["findings"];
  for (const auto& finding : findings) {
    std::set<int> lines;
    for (const auto& event : finding["events"]) lines.insert(event["site"]["line"].get<int>());
    if (lines == std::set<int>{26, 34}) z_id = finding["id"];
  }
  REQUIRE_FALSE(z_id.empty());
  const Fuzzed fuzzed = Fuzz(
      dir + "/rf", {"--strategy", "racefuzzer", "--races", report, "--race", z_id, "--runs", "10"},
      {program});
  INFO(fuzzed.run.output);
  REQUIRE(fuzzed.summary["races"].size() == 1);
  CHECK(fuzzed.summary["races"][0]["id"] == z_id);
  CHECK(fuzzed.summary["races"][0]["runs_with_real_race"] == 10);
  for (const auto& run : fuzzed.summary["runs"]) CHECK(run["race_target"] == z_id);

  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--strategy", "racefuzzer", "--races", dir + "/missing.json"}, "cannot read"},
      {{"--strategy", "racefuzzer", "--races", report, "--race", "race-00000000"},
       "no race finding has that id"},
      {{"--strategy", "random", "--races", report}, "--races and --race are for --strategy "},
  };
  for (const auto& [options, message] : bad) {
    std::vector<std::string> arguments = {"fuzz", "-o", dir + "/bad"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    arguments.insert(arguments.end(), {"--", program});
    const e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/bad.log");
    INFO(run.output);
    CHECK(e2e::ExitStatus(run.result) == 2);
    CHECK_THAT(run.output, Catch::Contains(message));
  }
}
