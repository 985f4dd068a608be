// pecan hunt's budget through the real CLI: sound races (WCP) replayed first, no
// replay started after --budget, and the exploring phase: when no replay of a prediction makes the
// program fail, the time left in --budget goes to pecan fuzz runs until one fails. A lost
// wake-up (bench/exposure/lost_wakeup_if_not_while.c), which no pattern predicts, is exposed with
// the chain that found it and a failure clip that fails every time; a correct program ends within
// the budget with nothing exposed; --no-explore only predicts and replays.
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "e2e_support.h"

TEST_CASE("hunt explores after its predictions and exposes a lost wake-up", "[e2e][hunt]") {
  const std::string dir = e2e::FreshDirectory("hunt-explore-lost-wakeup");
  const std::string out = dir + "/out";
  const std::string program = e2e::TestProgram("lost_wakeup_if_not_while");
  const e2e::PecanRun run =
      e2e::RunPecan({"hunt", "--budget", "60", "-o", out, "--", program}, dir + "/hunt.log", 300);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 1);
  CHECK_THAT(run.output, Catch::Contains("exploring schedules for"));
  CHECK_THAT(run.output, Catch::Contains("EXPOSED by exploring schedules after the predictions"));
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  REQUIRE(verdicts.contains("explore"));
  const nlohmann::json& explore = verdicts["explore"];
  CHECK((explore["stopped"] == "a run failed" || explore["stopped"] == "a replay failed"));
  REQUIRE(explore["failures"].size() >= 1);
  const nlohmann::json& failure = explore["failures"][0];
  INFO(failure.dump(2));
  // The race on `done` hatches; the hang needs another tail (a continuation) or another schedule.
  CHECK((failure["strategy"] == "continuation" || failure["strategy"] == "pct" ||
         failure["strategy"] == "random" || failure["strategy"] == "racefuzzer"));
  CHECK(failure["checks"] == 3);
  CHECK(failure["checks_failed"] == 3);
  // The SARIF and the page say it too.
  const nlohmann::json sarif = e2e::ReadJson(out + "/report.sarif");
  size_t explored_results = 0;
  for (const auto& result : sarif["runs"][0]["results"])
    explored_results += result["ruleId"] == "explored-" + failure["kind"].get<std::string>();
  CHECK(explored_results == explore["failures"].size());
  const std::string page = e2e::ReadText(out + "/report.html");
  CHECK_THAT(page, Catch::Contains("id=\"explored\""));
  CHECK_THAT(page, Catch::Contains(failure["clip"].get<std::string>()));
  // The clip fails the same way on every replay: ten more here.
  for (int i = 0; i < 10; ++i) {
    const e2e::PecanRun replay =
        e2e::RunPecan({"replay", "--json", failure["clip"].get<std::string>(), "--", program},
                      dir + "/replay.log", 60);
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay " << i << ":\n" << replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["failure"] == failure["kind"]);
  }
}

TEST_CASE("hunt of a correct program explores within its budget and exposes nothing",
          "[e2e][hunt]") {
  const std::string dir = e2e::FreshDirectory("hunt-explore-correct");
  const std::string out = dir + "/out";
  const auto start = std::chrono::steady_clock::now();
  const e2e::PecanRun run =
      e2e::RunPecan({"hunt", "--budget", "8", "-o", out, "--", e2e::TestProgram("sync_mix")},
                    dir + "/hunt.log", 120);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 0);
  // No run starts after the budget; one under way may finish (each is bounded by 10 s).
  CHECK(seconds < 8 + 12);
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  REQUIRE(verdicts.contains("explore"));
  CHECK(verdicts["explore"]["stopped"] == "budget spent");
  CHECK(verdicts["explore"]["failures"].empty());
  CHECK(verdicts["explore"]["runs"]["pct"].get<size_t>() > 0);
  CHECK(verdicts["explore"]["runs"]["random"].get<size_t>() > 0);
}

TEST_CASE("hunt --no-explore only predicts and replays", "[e2e][hunt]") {
  const std::string dir = e2e::FreshDirectory("hunt-no-explore");
  const std::string out = dir + "/out";
  const e2e::PecanRun run = e2e::RunPecan(
      {"hunt", "--no-explore", "-o", out, "--", e2e::TestProgram("lost_wakeup_if_not_while")},
      dir + "/hunt.log", 120);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 0);
  CHECK_THAT(run.output, !Catch::Contains("exploring"));
  CHECK(!e2e::ReadJson(out + "/verdicts.json").contains("explore"));
}

TEST_CASE("hunt marks sound races (WCP) and replays them first", "[e2e][hunt]") {
  const std::string dir = e2e::FreshDirectory("hunt-ranking");
  // lost_update's workers share no synchronization: its races are sound.
  const e2e::PecanRun lost = e2e::RunPecan(
      {"hunt", "--no-explore", "-o", dir + "/lost", "--", e2e::ExampleBinary("lost_update")},
      dir + "/lost.log", 120);
  INFO(lost.output);
  const nlohmann::json lost_verdicts = e2e::ReadJson(dir + "/lost/verdicts.json");
  REQUIRE(!lost_verdicts["findings"].empty());
  for (const auto& finding : lost_verdicts["findings"])
    if (finding["pattern"] == "race") CHECK(finding["sound"] == true);
  CHECK_THAT(lost.output, Catch::Contains("(sound: a WCP race)"));
  // handoff_race's race on `data` is ordered by a lock hand-off in the recorded run, but the
  // reader's critical section touches nothing the writer's does: WCP does not order them, and
  // the race is sound (happens-before alone would hide it).
  const e2e::PecanRun hidden = e2e::RunPecan(
      {"hunt", "--no-explore", "-o", dir + "/hidden", "--", e2e::TestProgram("handoff_race")},
      dir + "/hidden.log", 120);
  INFO(hidden.output);
  auto races_on = [](const nlohmann::json& verdicts, const std::string& variable) {
    std::vector<nlohmann::json> out;
    for (const auto& finding : verdicts["findings"]) {
      if (finding["pattern"] != "race") continue;
      bool on = false;
      for (const auto& event : finding["events"]) on |= event.value("variable", "") == variable;
      if (on) out.push_back(finding);
    }
    return out;
  };
  const auto on_data = races_on(e2e::ReadJson(dir + "/hidden/verdicts.json"), "data");
  CHECK(on_data.size() >= 1);
  for (const auto& finding : on_data) CHECK(finding["sound"] == true);
  // request_counter's `limit` is handed over under a mutex whose sections both touch the flag
  // that publishes it: WCP orders the write before the read, the race is not sound (and replay
  // refutes it).
  const e2e::PecanRun handed = e2e::RunPecan(
      {"hunt", "--no-explore", "-o", dir + "/handed", "--", e2e::TestProgram("request_counter")},
      dir + "/handed.log", 120);
  INFO(handed.output);
  const auto on_limit = races_on(e2e::ReadJson(dir + "/handed/verdicts.json"), "limit");
  CHECK(on_limit.size() >= 1);
  for (const auto& finding : on_limit) CHECK(finding["sound"] == false);
}

TEST_CASE("hunt starts no replay once its budget is spent", "[e2e][hunt]") {
  const std::string dir = e2e::FreshDirectory("hunt-budget-spent");
  const e2e::PecanRun run = e2e::RunPecan(
      {"hunt", "--budget", "0.001", "-o", dir + "/out", "--", e2e::ExampleBinary("lost_update")},
      dir + "/hunt.log", 120);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 0);
  const nlohmann::json verdicts = e2e::ReadJson(dir + "/out/verdicts.json");
  CHECK(verdicts["counts"]["predicted"].get<size_t>() > 0);
  // Every prediction is either not replayed or a variant on the same sites of one that is not.
  CHECK(verdicts["counts"]["not_replayed"].get<size_t>() +
            verdicts["counts"]["variants"].get<size_t>() ==
        verdicts["counts"]["predicted"].get<size_t>());
  CHECK(verdicts["counts"]["not_replayed"].get<size_t>() > 0);
  CHECK(!verdicts.contains("explore"));
  CHECK_THAT(run.output, Catch::Contains("Not replayed: "));
}
