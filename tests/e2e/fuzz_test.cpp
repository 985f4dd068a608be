// `pecan fuzz` through the real binary: a lost wake-up and a lock-order deadlock are found as
// deadlocks with who waits for what; a run is a function of its seed (same outcome and schedule
// every time); each failure's clip fails the same way in 10 replays; correct programs never fail
// under either strategy.
#include <filesystem>
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
  if (std::filesystem::exists(dir + "/fuzz.json")) fuzzed.summary = e2e::ReadJson(dir + "/fuzz.json");
  return fuzzed;
}

// The schedule a clip holds, as text: one "thread:kind@site" per step.
std::string ScheduleText(const std::string& clip_path) {
  const pecan::proto::Clip clip = pecan::ReadClipFile(clip_path);
  std::string text;
  int step = 0;
  for (int run = 0; run < clip.run_thread_size(); ++run)
    for (uint32_t i = 0; i < clip.run_length(run); ++i, ++step)
      text += std::to_string(clip.run_thread(run)) + ":" + std::to_string(clip.step_kind(step)) +
              "@" + std::to_string(clip.step_site(step)) + " ";
  return text;
}

// The first run of `summary` that failed with `kind` (null if none).
nlohmann::json FirstFailure(const nlohmann::json& summary, const std::string& kind) {
  for (const auto& run : summary["runs"])
    if (run["outcome"] == "failed" && run["failure"]["kind"] == kind) return run;
  return nullptr;
}

}  // namespace

TEST_CASE("pecan fuzz finds a lost wake-up; a run is a function of its seed; its clip "
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
             Catch::Contains("for a notify of condition"));
  CHECK_THAT(fuzzed.output, Catch::Contains("reproduce: "));

  // The same seed: the same outcome and the same schedule, 20 times.
  const std::string seed = std::to_string(failing["seed"].get<uint64_t>());
  const std::string schedule = ScheduleText(failing["clip"]);
  for (int i = 0; i < 20; ++i) {
    Fuzzed again = Fuzz(dir + "/again", {"--seed", seed, "--runs", "1"}, program);
    INFO("again " << i << ":\n" << again.output);
    REQUIRE(again.summary.is_object());
    const nlohmann::json run = again.summary["runs"][0];
    CHECK(run["outcome"] == "failed");
    CHECK(run["failure"]["kind"] == "deadlock");
    if (run["outcome"] == "failed") CHECK(ScheduleText(run["clip"]) == schedule);
  }
  // Its clip: the same deadlock on every replay.
  for (int i = 0; i < 10; ++i) {
    e2e::PecanRun replay = e2e::RunPecan(
        {"replay", "--json", failing["clip"].get<std::string>(), "--", program},
        dir + "/replay.log");
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay " << i << ":\n" << replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["verdict"] == "followed");
    CHECK(verdict["failure"] == "deadlock");
  }
}

TEST_CASE("pecan fuzz finds a lock-order deadlock and says who waits for which lock",
          "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-abba");
  for (const std::string strategy : {"random", "pct"}) {
    Fuzzed fuzzed =
        Fuzz(dir + "/" + strategy, {"--strategy", strategy, "--runs", "40"}, e2e::TestProgram("abba"));
    INFO(strategy << ":\n" << fuzzed.output);
    REQUIRE(fuzzed.summary.is_object());
    CHECK(fuzzed.exit_status == 1);
    const nlohmann::json failing = FirstFailure(fuzzed.summary, "deadlock");
    REQUIRE(failing.is_object());
    const std::string message = failing["failure"]["message"];
    CHECK_THAT(message, Catch::Contains("held by T1"));
    CHECK_THAT(message, Catch::Contains("held by T2"));
  }
}

TEST_CASE("pecan fuzz: correct programs never fail under random or PCT schedules",
          "[e2e][fuzz]") {
  const std::string dir = e2e::FreshDirectory("fuzz-correct");
  for (const std::string name :
       {"sync_mix", "correct_condvar", "correct_fork_join", "correct_publication"}) {
    const std::string program = name == "sync_mix" ? e2e::TestProgram(name) : e2e::ExampleBinary(name);
    for (const std::string strategy : {"random", "pct"}) {
      Fuzzed fuzzed = Fuzz(dir + "/" + name + "-" + strategy,
                           {"--strategy", strategy, "--runs", "25", "--timeout", "20"}, program);
      INFO(name << " under " << strategy << ":\n" << fuzzed.output);
      REQUIRE(fuzzed.summary.is_object());
      CHECK(fuzzed.exit_status == 0);
      CHECK(fuzzed.summary["counts"]["failed"] == 0);
      CHECK(fuzzed.summary["counts"]["errors"] == 0);
    }
  }
}
