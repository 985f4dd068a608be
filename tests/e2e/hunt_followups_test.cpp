// pecan hunt's replays before pecan fuzz, through the real CLI: critical-section flips expose a
// check-then-act split over two locked steps (bench/exposure/bank_withdraw.c, which no pattern
// predicts: every access holds the lock), with a failure clip that fails every time; an anomaly
// that hatched without a failure is continued with other tails.
#include <string>

#include <catch2/catch.hpp>

#include "e2e_support.h"

TEST_CASE("hunt flips critical sections and exposes a check-then-act over two locked steps",
          "[e2e][hunt][flip]") {
  const std::string dir = e2e::FreshDirectory("hunt-flip-bank-withdraw");
  const std::string out = dir + "/out";
  const std::string program = e2e::TestProgram("bank_withdraw");
  const e2e::PecanRun run =
      e2e::RunPecan({"hunt", "--budget", "60", "-o", out, "--", program}, dir + "/hunt.log", 300);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 1);
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  CHECK(verdicts["counts"]["predicted"] == 0);
  REQUIRE(verdicts.contains("explore"));
  const nlohmann::json& explore = verdicts["explore"];
  CHECK(explore["stopped"] == "a replay failed");
  CHECK(explore["runs"]["flip"].get<size_t>() >= 1);
  CHECK(!explore["runs"].contains("pct"));  // found before pecan fuzz ran
  REQUIRE(explore["failures"].size() >= 1);
  const nlohmann::json& failure = explore["failures"][0];
  INFO(failure.dump(2));
  CHECK(failure["strategy"] == "flip");
  CHECK(failure["kind"] == "assertion");
  CHECK_THAT(failure["chain"].get<std::string>(), Catch::StartsWith("critical-section flip flip-"));
  CHECK(failure["checks_failed"] == failure["checks"]);
  CHECK_THAT(run.output, Catch::Contains("critical-section flip"));
  for (int i = 0; i < 10; ++i) {
    const e2e::PecanRun replay =
        e2e::RunPecan({"replay", "--json", failure["clip"].get<std::string>(), "--", program},
                      dir + "/replay.log", 60);
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay " << i << ":\n" << replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["failure"] == "assertion");
  }
}

TEST_CASE("hunt continues an anomaly that hatched without a failure", "[e2e][hunt]") {
  // handoff_race's race on `data` hatches on replay, and the program (which only prints it) never
  // fails: the exploring phase replays it with four more tails before pecan fuzz.
  const std::string dir = e2e::FreshDirectory("hunt-continuations");
  const std::string out = dir + "/out";
  const e2e::PecanRun run = e2e::RunPecan(
      {"hunt", "--budget", "20", "-o", out, "--", e2e::TestProgram("handoff_race")},
      dir + "/hunt.log", 200);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 1);  // a confirmed race
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  CHECK(verdicts["counts"]["confirmed"].get<size_t>() >= 1);
  CHECK_THAT(run.output, Catch::Contains("4 continuation runs"));
  REQUIRE(verdicts.contains("explore"));
  const size_t hatched_races = [&] {
    size_t n = 0;
    for (const auto& f : verdicts["findings"])
      n += f["pattern"] == "race" && f.contains("verdict") && f["verdict"]["outcome"] == "hatched";
    return n;
  }();
  CHECK(verdicts["explore"]["runs"]["continuation"].get<size_t>() ==
        4 * std::min<size_t>(hatched_races, 8));
  CHECK(verdicts["explore"]["failures"].empty());
}
