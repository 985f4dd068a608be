// `pecan fuzz` through the real binary: a lost wake-up and a lock-order deadlock are found as
// deadlocks with who waits for what; a self-deadlock and a spin loop end with the right verdict
// within the bound; a run is a function of its seed (same outcome and schedule every time);
// each failure's clip fails the same way in 10 replays; correct programs with condition
// variables, barriers, semaphores, atomics and 64 threads never fail in 200 seeded runs.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"
#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"

namespace {

struct Fuzzed {
  int exit_status = -1;
  std::string output;
  nlohmann::json summary;
};

Fuzzed Fuzz(const std::string& dir, std::vector<std::string> options, const std::string& program) {
  std::vector<std::string> arguments = {"fuzz", "-o", dir};
  arguments.insert(arguments.end(), options.begin(), options.end());
  arguments.insert(arguments.end(), {"--", program});
  e2e::PecanRun run = e2e::RunPecan(arguments, dir + ".log");
  Fuzzed fuzzed;
  fuzzed.exit_status = e2e::ExitStatus(run.result);
  fuzzed.output = run.output;
  if (std::filesystem::exists(dir + "/fuzz.json"))
    fuzzed.summary = e2e::ReadJson(dir + "/fuzz.json");
  return fuzzed;
}

// The first run of `summary` that failed with `kind` (null if none).
nlohmann::json FirstFailure(const nlohmann::json& summary, const std::string& kind) {
  for (const auto& run : summary["runs"])
    if (run["outcome"] == "failed" && run["failure"]["kind"] == kind) return run;
  return nullptr;
}

}  // namespace

TEST_CASE(
    "pecan fuzz finds a lost wake-up, runs it again from its seed, and its clip "
    "reproduces it",
    "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-lost-wakeup");
  const std::string program = e2e::TestProgram("lost_wakeup");
  Fuzzed fuzzed = Fuzz(dir + "/out", {"--runs", "40"}, program);
  INFO(fuzzed.output);
  REQUIRE(fuzzed.summary.is_object());
  CHECK(fuzzed.exit_status == 1);
  CHECK(fuzzed.summary["counts"]["errors"] == 0);
  const nlohmann::json failing = FirstFailure(fuzzed.summary, "deadlock");
  REQUIRE(failing.is_object());
  CHECK_THAT(failing["failure"]["message"].get<std::string>(),
             Catch::Contains("waits for a notify of condition `changed` (lost_wakeup.c:"));
  CHECK(failing["failure"]["thread"] == "T0");
  CHECK_THAT(failing["failure"]["site"].get<std::string>(), Catch::Contains("lost_wakeup.c:"));
  CHECK_THAT(fuzzed.output, Catch::Contains("reproduce: "));

  // The same seed: the same outcome and the same schedule, 20 times.
  const std::string seed = std::to_string(failing["seed"].get<uint64_t>());
  const std::string schedule = e2e::ScheduleText(failing["clip"]);
  for (int i = 0; i < 20; ++i) {
    Fuzzed again = Fuzz(dir + "/again", {"--seed", seed, "--runs", "1"}, program);
    INFO("again " << i << ":\n" << again.output);
    REQUIRE(again.summary.is_object());
    const nlohmann::json run = again.summary["runs"][0];
    CHECK(run["outcome"] == "failed");
    CHECK(run["failure"]["kind"] == "deadlock");
    if (run["outcome"] == "failed") CHECK(e2e::ScheduleText(run["clip"]) == schedule);
  }
  // Its clip: the same deadlock on every replay.
  for (int i = 0; i < 10; ++i) {
    e2e::PecanRun replay =
        e2e::RunPecan({"replay", "--json", failing["clip"].get<std::string>(), "--", program},
                      dir + "/replay.log");
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay " << i << ":\n" << replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["verdict"] == "followed");
    CHECK(verdict["failure"] == "deadlock");
  }
}

TEST_CASE("pecan fuzz finds a lock-order deadlock and says who waits for which lock held by whom",
          "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-abba");
  for (const std::string strategy : {"random", "pct"}) {
    Fuzzed fuzzed = Fuzz(dir + "/" + strategy, {"--strategy", strategy, "--runs", "40"},
                         e2e::TestProgram("abba"));
    INFO(strategy << ":\n" << fuzzed.output);
    REQUIRE(fuzzed.summary.is_object());
    CHECK(fuzzed.exit_status == 1);
    const nlohmann::json failing = FirstFailure(fuzzed.summary, "deadlock");
    REQUIRE(failing.is_object());
    const std::string message = failing["failure"]["message"];
    // abba.c: forward takes a (line 12) then b (line 13); backward b (22) then a (23).
    CHECK_THAT(message, Catch::Contains("waits for lock `b` (abba.c:13) held by T2 (taken at "
                                        "abba.c:22)"));
    CHECK_THAT(message, Catch::Contains("waits for lock `a` (abba.c:23) held by T1 (taken at "
                                        "abba.c:12)"));
    // SARIF: one result per distinct failure, located in abba.c.
    const nlohmann::json sarif = e2e::ReadJson(dir + "/" + strategy + "/fuzz.sarif");
    const nlohmann::json results = sarif["runs"][0]["results"];
    REQUIRE(results.size() == fuzzed.summary["failures"].size());
    CHECK(results[0]["ruleId"] == "deadlock");
    CHECK_THAT(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                   .get<std::string>(),
               Catch::Contains("abba.c"));
  }
}

TEST_CASE(
    "pecan fuzz ends a self-deadlock and a spin loop with the right verdict within the "
    "bound, and pecan replay of their clips says the same",
    "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-stuck");
  struct Case {
    std::string program, kind, says;
  };
  for (const Case& c :
       {Case{"self_deadlock", "deadlock",
             "T1 waits for lock `table_lock` (self_deadlock.c:11), which it holds itself (taken "
             "at self_deadlock.c:18)"},
        Case{"spin_forever", "timeout", "T1 spins: "}}) {
    const auto start = std::chrono::steady_clock::now();
    Fuzzed fuzzed =
        Fuzz(dir + "/" + c.program, {"--runs", "2", "--timeout", "3"}, e2e::TestProgram(c.program));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(c.program << ":\n" << fuzzed.output);
    REQUIRE(fuzzed.summary.is_object());
    CHECK(fuzzed.exit_status == 1);
    CHECK(fuzzed.summary["counts"]["failed"] == 2);
    // Two runs at a time, each bounded by 3 s and 2 s of confirmation, plus start-up (and a
    // loaded machine).
    CHECK(seconds < 30);
    const nlohmann::json failing = FirstFailure(fuzzed.summary, c.kind);
    REQUIRE(failing.is_object());
    CHECK_THAT(failing["failure"]["message"].get<std::string>(), Catch::Contains(c.says));
    // The failure clip holds what the run did in its 3 s (a spin loop: ~18,000 steps, each a
    // usleep), so its replay gets 2 s more to run past the clip's end, as hunt gives its check
    // replays: with 3 s the clip itself may not finish and the replay stops at its time bound.
    e2e::PecanRun replay =
        e2e::RunPecan({"replay", "--json", "--timeout", "5", failing["clip"].get<std::string>(),
                       "--", e2e::TestProgram(c.program)},
                      dir + "/" + c.program + "-replay.log", 30);
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay:\n" << replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["failure"] == c.kind);
    CHECK_THAT(verdict["failure_message"].get<std::string>(), Catch::Contains(c.says));
  }
}

TEST_CASE(
    "pecan fuzz: correct programs never fail in 200 seeded runs (100 random, 100 PCT), "
    "and the same seeds run the same way again",
    "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-correct");
  for (const std::string name :
       {"sync_mix", "condvar_queue_correct", "barrier_phases_correct", "semaphore_pool_correct",
        "atomic_counter_correct", "threads64_correct", "deadlock_abba_correct", "correct_fork_join",
        "correct_condvar"}) {
    const std::string program =
        name.rfind("correct_", 0) == 0 ? e2e::ExampleBinary(name) : e2e::TestProgram(name);
    for (const std::string strategy : {"random", "pct"}) {
      Fuzzed fuzzed = Fuzz(dir + "/" + name + "-" + strategy,
                           {"--strategy", strategy, "--runs", "100", "--timeout", "20"}, program);
      INFO(name << " under " << strategy << ":\n" << fuzzed.output);
      REQUIRE(fuzzed.summary.is_object());
      CHECK(fuzzed.exit_status == 0);
      CHECK(fuzzed.summary["counts"]["failed"] == 0);
      CHECK(fuzzed.summary["counts"]["errors"] == 0);
    }
    // Runs are functions of their seeds: the first 10 again, event for event — those in which
    // the watchdog never had to take the turn from a thread blocked outside pecan's view and no
    // choice was made before every thread settled (timing-dependent choices, counted in
    // idle_handovers and unsettled_choices; a loaded machine makes them).
    Fuzzed again = Fuzz(dir + "/" + name + "-again", {"--runs", "10"}, program);
    const nlohmann::json first = e2e::ReadJson(dir + "/" + name + "-random/fuzz.json");
    REQUIRE(again.summary.is_object());
    size_t compared = 0;
    for (size_t i = 0; i < 10; ++i) {
      INFO(name << " seed " << i);
      const auto timing_dependent = [](const nlohmann::json& run) {
        return run["idle_handovers"] != 0 || run["unsettled_choices"] != 0;
      };
      if (timing_dependent(again.summary["runs"][i]) || timing_dependent(first["runs"][i]))
        continue;
      ++compared;
      CHECK(again.summary["runs"][i]["events"] == first["runs"][i]["events"]);
    }
    CHECK(compared >= 5);
  }
}

TEST_CASE("pecan fuzz --keep-traces keeps each run's trace, which pecan analyze reads",
          "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-traces");
  Fuzzed fuzzed =
      Fuzz(dir + "/out", {"--runs", "3", "--keep-traces"}, e2e::ExampleBinary("lost_update"));
  INFO(fuzzed.output);
  REQUIRE(fuzzed.summary.is_object());
  for (const auto& run : fuzzed.summary["runs"]) {
    REQUIRE(run.contains("trace"));
    const std::string trace = run["trace"];
    CHECK(std::filesystem::file_size(trace) > 0);
    e2e::PecanRun analyze = e2e::RunPecan(
        {"analyze", trace, "--format", "json", "-o", dir + "/report.json"}, dir + "/a.log");
    INFO(analyze.output);
    CHECK(e2e::ExitStatus(analyze.result) == 0);
  }
}

TEST_CASE("pecan fuzz never replaces a file it did not write in its output directory",
          "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-foreign");
  {
    std::ofstream mine(dir + "/fuzz.json");
    mine << "mine\n";
  }
  e2e::PecanRun run = e2e::RunPecan(
      {"fuzz", "--runs", "1", "-o", dir, "--", e2e::ExampleBinary("correct_fork_join")},
      dir + ".log");
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 2);
  CHECK_THAT(run.output, Catch::Contains("fuzz.json was not written by pecan"));
  CHECK(e2e::ReadText(dir + "/fuzz.json") == "mine\n");
}
