// pecan fuzz --strategy noise (AtomRace: Letko, Vojnar, Křena, PADTAD 2008) through the real CLI:
// the paper's counter example (tests/e2e/programs/counter_race.c) caught in every run under each
// heuristic, its failure reproduced by the recorded clip; an atomicity violation of a pecan
// region whose accesses all hold the lock (region_balance.c); and correct programs — locks,
// condition variables, barriers, semaphores, atomics, 64 threads — with no race and no failure
// (AtomRace reports only what happened).
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

// Every finding of every run of `summary`, each checked to be on `variable` at `lines`.
size_t RunsWithFindings(const nlohmann::json& summary, const std::string& type,
                        const std::string& variable, const std::set<int>& lines) {
  size_t runs = 0;
  for (const auto& run : summary["runs"]) {
    REQUIRE(run.contains("races"));
    CHECK(run["races_total"] == run["races"].size());
    for (const auto& finding : run["races"]) {
      INFO(finding.dump());
      CHECK(finding["type"] == type);
      for (const char* part : {"first", "second", "third"}) {
        if (!finding.contains(part)) continue;
        CHECK(finding[part]["variable"] == variable);
        CHECK(lines.count(finding[part]["site"]["line"].get<int>()) == 1);
        CHECK(finding[part]["site"].contains("module"));
        CHECK(finding[part]["site"].contains("offset"));
      }
    }
    runs += !run["races"].empty();
  }
  return runs;
}

}  // namespace

TEST_CASE("Noise catches the race on the counter in every run and its failure replays",
          "[e2e][fuzz][noise]") {
  const std::string dir = e2e::FreshDirectory("noise-counter");
  const std::string out = dir + "/random";
  const std::string program = e2e::TestProgram("counter_race");
  const e2e::PecanRun run = e2e::RunPecan(
      {"fuzz", "--strategy", "noise", "--runs", "20", "-o", out, "--", program}, out + ".log", 300);
  INFO(run.output);
  const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
  REQUIRE(summary["runs"].size() == 20);
  CHECK(summary["strategy"] == "noise");
  CHECK(summary["heuristic"] == "random");
  CHECK(RunsWithFindings(summary, "race", "counter", {15}) == 20);
  CHECK_THAT(run.output, Catch::Contains("Caught as they happened (AtomRace)"));
  CHECK_THAT(run.output, Catch::Contains("race on 'counter'"));

  // The lost update made most runs exit 1; the first failing run's clip fails the same way.
  const nlohmann::json* failing = nullptr;
  for (const auto& r : summary["runs"])
    if (r["outcome"] == "failed" && failing == nullptr) failing = &r;
  if (failing == nullptr) {
    CHECK(e2e::ExitStatus(run.result) == 0);
    WARN("no run lost an update on this machine: the replay of a failure is not checked");
    return;
  }
  CHECK(e2e::ExitStatus(run.result) == 1);
  REQUIRE(!(*failing)["clip"].get<std::string>().empty());
  CHECK((*failing)["failure"]["kind"] == "exit");
  for (int i = 0; i < 3; ++i) {
    const e2e::PecanRun replay =
        e2e::RunPecan({"replay", "--json", (*failing)["clip"].get<std::string>(), "--", program},
                      dir + "/replay.log", 60);
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay " << i << ":\n" << replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["failure"] == "exit");
    CHECK_THAT(replay.output, Catch::Contains("counter "));
    CHECK_THAT(replay.output, !Catch::Contains("counter 40000"));
  }
}

TEST_CASE("Noise on chosen variables and locations catches the counter race in every run",
          "[e2e][fuzz][noise]") {
  for (const std::string heuristic : {"variable", "location"}) {
    const std::string dir = e2e::FreshDirectory("noise-" + heuristic);
    const std::string out = dir + "/fuzz";
    const e2e::PecanRun run =
        e2e::RunPecan({"fuzz", "--strategy", "noise", "--heuristic", heuristic, "--runs", "5", "-o",
                       out, "--", e2e::TestProgram("counter_race")},
                      out + ".log", 300);
    INFO(heuristic << ":\n" << run.output);
    CHECK_THAT(run.output, Catch::Contains("1 shared variable to focus the noise on"));
    const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
    REQUIRE(summary["runs"].size() == 5);
    CHECK(summary["heuristic"] == heuristic);
    CHECK(summary["focus"] == (heuristic == "variable" ? 2 : 4));
    CHECK(RunsWithFindings(summary, "race", "counter", {15}) == 5);
  }
}

TEST_CASE("Noise catches an atomicity violation of a region whose accesses all hold the lock",
          "[e2e][fuzz][noise]") {
  const std::string dir = e2e::FreshDirectory("noise-region");
  const std::string out = dir + "/fuzz";
  const e2e::PecanRun run = e2e::RunPecan({"fuzz", "--strategy", "noise", "--runs", "10", "-o", out,
                                           "--", e2e::TestProgram("region_balance")},
                                          out + ".log", 300);
  INFO(run.output);
  const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
  REQUIRE(summary["runs"].size() == 10);
  // No race: every access holds the lock. The deposits overlap in most runs.
  const size_t caught = RunsWithFindings(summary, "atomicity", "balance", {21, 24});
  CHECK(caught >= 5);
  for (const auto& r : summary["runs"])
    for (const auto& finding : r["races"]) CHECK(finding["variant"] == "R-W-W");
}

TEST_CASE("Noise reports nothing on correct programs", "[e2e][fuzz][noise]") {
  const std::string dir = e2e::FreshDirectory("noise-correct");
  for (const std::string program :
       {"condvar_queue_correct", "barrier_phases_correct", "semaphore_pool_correct",
        "atomic_counter_correct", "threads64_correct", "deadlock_abba_correct", "sync_mix"}) {
    const std::string out = dir + "/" + program;
    const e2e::PecanRun run =
        e2e::RunPecan({"fuzz", "--strategy", "noise", "--runs", "10", "--frequency", "100", "-o",
                       out, "--", e2e::TestProgram(program)},
                      out + ".log", 300);
    INFO(program << ":\n" << run.output);
    CHECK(e2e::ExitStatus(run.result) == 0);
    const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
    REQUIRE(summary["runs"].size() == 10);
    CHECK(summary["counts"]["failed"] == 0);
    CHECK(summary["counts"]["errors"] == 0);
    for (const auto& r : summary["runs"]) CHECK(r["races"].empty());
  }
}

TEST_CASE("Noise options are refused with other strategies", "[e2e][fuzz][noise]") {
  const std::string dir = e2e::FreshDirectory("noise-options");
  const e2e::PecanRun run =
      e2e::RunPecan({"fuzz", "--strategy", "random", "--heuristic", "variable", "-o", dir + "/f",
                     "--", e2e::TestProgram("counter_race")},
                    dir + "/run.log");
  CHECK(e2e::ExitStatus(run.result) == 2);
  CHECK_THAT(run.output,
             Catch::Contains("--heuristic, --frequency, --strength, --focus and --atomic are for "
                             "--strategy noise"));
}

TEST_CASE("Noise checks the atomic sections a file lists: a function or a range of lines",
          "[e2e][fuzz][noise]") {
  const std::string dir = e2e::FreshDirectory("noise-atomic");
  const std::string program = e2e::TestProgram("deposit_steps");
  struct Case {
    std::string name, spec;
  };
  for (const Case& c : {Case{"function", "function deposit\n"},
                        Case{"lines", "# one deposit\nlines deposit_steps.c:18-23\n"}}) {
    const std::string spec = dir + "/" + c.name + ".txt";
    std::ofstream(spec) << c.spec;
    const std::string out = dir + "/" + c.name;
    const e2e::PecanRun run = e2e::RunPecan(
        {"fuzz", "--strategy", "noise", "--runs", "10", "--atomic", spec, "-o", out, "--", program},
        out + ".log", 300);
    INFO(c.name << ":\n" << run.output);
    CHECK_THAT(run.output, Catch::Contains("1 atomic section from " + spec));
    const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
    REQUIRE(summary["runs"].size() == 10);
    CHECK(RunsWithFindings(summary, "atomicity", "balance", {19, 22}) >= 5);
    for (const auto& r : summary["runs"])
      for (const auto& finding : r["races"]) CHECK(finding["variant"] == "R-W-W");
  }
  // Without the file nothing is wrong: every access holds the lock.
  const std::string out = dir + "/none";
  const e2e::PecanRun run = e2e::RunPecan(
      {"fuzz", "--strategy", "noise", "--runs", "5", "-o", out, "--", program}, out + ".log", 300);
  INFO(run.output);
  const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
  CHECK(RunsWithFindings(summary, "atomicity", "balance", {19, 22}) == 0);
}

TEST_CASE("A bad atomic-sections file is refused with its line", "[e2e][fuzz][noise]") {
  const std::string dir = e2e::FreshDirectory("noise-atomic-bad");
  struct Case {
    std::string spec, message;
  };
  for (const Case& c :
       {Case{"function no_such_function\n", "bad.txt:1: no function no_such_function in "},
        Case{"# c\nlines deposit_steps.c\n", "bad.txt:2: expected `lines FILE:FIRST-LAST`"},
        Case{"lines nowhere.c:1-3\n", "bad.txt:1: no code for nowhere.c:1-3"},
        Case{"section deposit\n", "bad.txt:1: expected `function NAME` or `lines"},
        Case{"# nothing\n", "lists no atomic section"}}) {
    const std::string spec = dir + "/bad.txt";
    std::ofstream(spec) << c.spec;
    const e2e::PecanRun run =
        e2e::RunPecan({"fuzz", "--strategy", "noise", "--runs", "1", "--atomic", spec, "-o",
                       dir + "/out", "--", e2e::TestProgram("deposit_steps")},
                      dir + "/run.log", 60);
    INFO(c.spec << run.output);
    CHECK(e2e::ExitStatus(run.result) == 2);
    CHECK_THAT(run.output, Catch::Contains(c.message));
  }
}

TEST_CASE("pecan heal with the noise strategy's report makes 20 of 20 counter runs correct",
          "[e2e][fuzz][noise][heal]") {
  const std::string dir = e2e::FreshDirectory("noise-heal");
  const std::string out = dir + "/fuzz";
  const std::string program = e2e::TestProgram("counter_race");
  const e2e::PecanRun fuzz = e2e::RunPecan(
      {"fuzz", "--strategy", "noise", "--runs", "3", "-o", out, "--", program}, out + ".log", 120);
  INFO(fuzz.output);
  const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
  REQUIRE(RunsWithFindings(summary, "race", "counter", {15}) == 3);
  for (int i = 0; i < 20; ++i) {
    const e2e::PecanRun heal =
        e2e::RunPecan({"heal", out + "/fuzz.json", "--", program}, dir + "/heal.log", 120);
    INFO("healed run " << i << ":\n" << heal.output);
    CHECK(e2e::ExitStatus(heal.result) == 0);
    CHECK_THAT(heal.output, Catch::Contains("counter 40000"));
    CHECK_THAT(heal.output, Catch::Contains("pecan heal: healing engaged"));
    CHECK_THAT(heal.output, Catch::Contains("gave up 0 times"));
  }
}
