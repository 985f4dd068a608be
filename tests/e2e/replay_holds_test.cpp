// A recorded run and its clips reproduce on demand, through the real binary: the same command
// records the same events whatever address randomization does, its recorded clip replays to the
// end every time, a worker that outlives main leaves no accesses without their locks, a
// program's unfinished last output line does not hide replay's verdict from hunt, and after the
// clip the run stays serialized under its seed, so a failure comes back from its failure clip.
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"
#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"
#include "trace_format/trace_reader.h"

namespace {

// `env -i pecan ARGS...`: an empty environment, so the program's arguments and environment
// strings are small and the page that holds them is laid out differently in each run.
e2e::PecanRun RunPecanWithoutEnvironment(const std::vector<std::string>& arguments,
                                         const std::string& log_path) {
  pecan::workflow::ChildSpec spec;
  spec.argv = {"/usr/bin/env", "-i", kPecanBinary};
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  spec.timeout_seconds = 120;
  e2e::PecanRun run;
  run.result = pecan::workflow::RunChild(spec);
  run.output = e2e::ReadText(log_path);
  return run;
}

uint64_t EventCount(const std::string& trace) {
  pecan::TraceReader reader(trace);
  uint64_t events = 0;
  pecan::EventBatch batch;
  while (reader.Next(batch)) events += batch.count();
  return events;
}

}  // namespace

TEST_CASE("a program reading its arguments records the same events every time and replays",
          "[e2e][replay][stable]") {
  const std::string dir = e2e::FreshDirectory("replay-holds-arguments");
  const std::string program = e2e::TestProgram("parse_operands");
  const std::vector<std::string> command = {program, "-v", "-r", "3", "12", "345", "6789"};
  std::set<uint64_t> counts;
  for (int i = 0; i < 20; ++i) {
    const std::string trace = dir + "/trace-" + std::to_string(i) + ".pecan";
    std::vector<std::string> arguments = {"record", "-q", "-o", trace, "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    e2e::PecanRun record = RunPecanWithoutEnvironment(arguments, dir + "/record.log");
    INFO(record.output);
    REQUIRE(e2e::ExitStatus(record.result) == 0);
    counts.insert(EventCount(trace));
  }
  INFO("distinct event counts: " << counts.size() << " (smallest " << *counts.begin()
                                 << ", largest " << *counts.rbegin() << ")");
  CHECK(counts.size() == 1);

  e2e::PecanRun clips = e2e::RunPecan(
      {"clips", dir + "/trace-0.pecan", "--recorded", "-o", dir + "/clips"}, dir + "/clips.log");
  INFO(clips.output);
  REQUIRE(e2e::ExitStatus(clips.result) == 0);
  int followed = 0;
  for (int i = 0; i < 20; ++i) {
    std::vector<std::string> arguments = {"replay", "--json", dir + "/clips/recorded.clip", "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    e2e::PecanRun replay = RunPecanWithoutEnvironment(arguments, dir + "/replay.log");
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay " << i << ":\n" << replay.output);
    CHECK(e2e::ExitStatus(replay.result) == 0);
    REQUIRE(verdict.is_object());
    CHECK(verdict["verdict"] == "followed");
    if (verdict["verdict"] == "followed" && verdict["steps_executed"] == verdict["steps_total"])
      ++followed;
  }
  CHECK(followed == 20);
}

TEST_CASE("replay --json starts its verdict on a line of its own after an unfinished line",
          "[e2e][replay]") {
  const std::string dir = e2e::FreshDirectory("replay-holds-unfinished-line");
  const std::string program = e2e::TestProgram("unfinished_line");
  // The program's stdout and pecan's are one file, as when hunt collects a replay's output.
  e2e::PecanRun record =
      e2e::RunPecan({"record", "-q", "-o", dir + "/trace.pecan", "--", program}, dir + "/r.log");
  REQUIRE(e2e::ExitStatus(record.result) == 0);
  REQUIRE(e2e::ExitStatus(
              e2e::RunPecan({"clips", dir + "/trace.pecan", "--recorded", "-o", dir + "/clips"},
                            dir + "/c.log")
                  .result) == 0);
  e2e::PecanRun replay = e2e::RunPecan(
      {"replay", "--json", dir + "/clips/recorded.clip", "--", program}, dir + "/replay.log");
  INFO(replay.output);
  CHECK_THAT(replay.output, Catch::Contains("count 3\n{"));
  CHECK(e2e::LastJsonLine(replay.output)["verdict"] == "followed");

  // hunt reads that verdict: its race is confirmed, not "exited without a verdict".
  e2e::PecanRun hunt = e2e::RunPecan({"hunt", "--no-explore", "-o", dir + "/hunt", "--", program},
                                     dir + "/hunt.log");
  INFO(hunt.output);
  CHECK_THAT(hunt.output, !Catch::Contains("without a verdict"));
  const nlohmann::json findings = e2e::ReadJson(dir + "/hunt/verdicts.json")["findings"];
  REQUIRE(!findings.empty());
  for (const auto& finding : findings) {
    INFO(finding.dump());
    CHECK(finding["verdict"]["outcome"] != "error");
  }
}

namespace {

// Records `program` `rounds` times (with `record_options` before the `--`) and analyzes each
// trace: its every access is protected, so no recording may predict anything.
void RecordingsPredictNothing(const std::string& name,
                              const std::vector<std::string>& record_options, int rounds) {
  const std::string dir = e2e::FreshDirectory("replay-holds-" + name);
  const std::string program = e2e::TestProgram(name);
  for (int i = 0; i < rounds; ++i) {
    const std::string trace = dir + "/trace.pecan";
    std::vector<std::string> record_args = {"record", "-q", "-o", trace};
    record_args.insert(record_args.end(), record_options.begin(), record_options.end());
    record_args.insert(record_args.end(), {"--", program});
    e2e::PecanRun record = e2e::RunPecan(record_args, dir + "/record.log");
    INFO(record.output);
    REQUIRE(e2e::ExitStatus(record.result) == 0);
    e2e::PecanRun analyze = e2e::RunPecan(
        {"analyze", trace, "-f", "json", "-o", dir + "/report.json"}, dir + "/analyze.log");
    INFO(analyze.output);
    REQUIRE(e2e::ExitStatus(analyze.result) == 0);
    const nlohmann::json report = e2e::ReadJson(dir + "/report.json");
    INFO("recording " << i << ": " << report["findings"].dump());
    CHECK(report["findings"].empty());
  }
}

}  // namespace

TEST_CASE("a worker that still locks while main returns: no access without its lock",
          "[e2e][record]") {
  RecordingsPredictNothing("worker_outlives_main", {}, 5);
}

// A LOCK dropped at the end because its thread's ring was full, and the accesses after it found
// room when the writer drained once more: before the fix 5 of 20 such recordings predicted a
// race ("holding no lock"), none of 40 after.
TEST_CASE("workers whose full rings drop a LOCK at the end record no access after it",
          "[e2e][record]") {
  RecordingsPredictNothing("workers_outlive_main", {"--zstd-level", "19"}, 20);
}

TEST_CASE(
    "after the clip the run stays serialized under its seed: a lost wake-up hangs the "
    "same way every time, and its failure clip reproduces the hang",
    "[e2e][replay][tail]") {
  const std::string dir = e2e::FreshDirectory("replay-holds-lost-wakeup");
  const std::string program = e2e::TestProgram("lost_wakeup");
  const std::string clip = e2e::RaceClip(program, dir, {17, 27});
  std::string hanging_clip;
  int hangs = 0;
  for (int seed = 0; seed < 8; ++seed) {
    std::string failure, schedule;
    for (int again = 0; again < 2; ++again) {
      const std::string failure_clip =
          dir + "/seed-" + std::to_string(seed) + "-" + std::to_string(again) + ".clip";
      e2e::PecanRun replay =
          e2e::RunPecan({"replay", "--json", "--seed", std::to_string(seed), "--timeout", "20",
                         "--failure-clip", failure_clip, clip, "--", program},
                        dir + "/replay.log");
      const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
      INFO("seed " << seed << ", replay " << again << ":\n" << replay.output);
      REQUIRE(verdict.is_object());
      CHECK(verdict["verdict"] == "hatched");
      const std::string seen = verdict["failure"].is_string() ? verdict["failure"] : "";
      // Either the worker's signal came before main waited (a hang: every thread blocked), or
      // main waited first and was woken; nothing else.
      CHECK((seen.empty() || seen == "deadlock"));
      const std::string executed =
          std::filesystem::exists(failure_clip) ? e2e::ScheduleText(failure_clip) : "";
      CHECK(executed.empty() == seen.empty());
      if (again == 0) {
        failure = seen;
        schedule = executed;
      } else {
        // The same clip and seed: the same run.
        CHECK(seen == failure);
        CHECK(executed == schedule);
      }
      if (seen == "deadlock" && hanging_clip.empty()) hanging_clip = failure_clip;
    }
    hangs += failure == "deadlock";
  }
  INFO("seeds whose run hung: " << hangs << " of 8");
  REQUIRE(hangs > 0);
  for (int i = 0; i < 10; ++i) {
    e2e::PecanRun replay = e2e::RunPecan({"replay", "--json", hanging_clip, "--", program},
                                         dir + "/failure-replay.log");
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    INFO("replay " << i << " of the failure clip:\n" << replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["verdict"] == "followed");
    CHECK(verdict["failure"] == "deadlock");
    CHECK_THAT(verdict["failure_message"].get<std::string>(),
               Catch::Contains("every thread is blocked"));
  }
}

TEST_CASE(
    "a replay starts from the recorded state with --before-each, and --expect-exit names "
    "the normal exit status",
    "[e2e][replay][hunt]") {
  const std::string dir = e2e::FreshDirectory("replay-holds-starting-state");
  const std::string program = e2e::TestProgram("starting_state");
  // hunt records and replays in `dir`, where the program leaves state.txt behind.
  e2e::PecanRun hunt = e2e::RunPecanIn(dir,
                                       {"hunt", "-o", "out", "--expect-exit", "3", "--before-each",
                                        "rm -f state.txt", "--", program},
                                       dir + "/hunt.log");
  INFO(hunt.output);
  CHECK_THAT(hunt.output, !Catch::Contains("the recorded run itself failed"));
  const nlohmann::json verdicts = e2e::ReadJson(dir + "/out/verdicts.json");
  REQUIRE(verdicts["counts"]["confirmed"].get<int>() >= 1);
  std::string replayed_id;
  for (const auto& finding : verdicts["findings"]) {
    INFO(finding.dump());
    if (finding.contains("not_replayed")) continue;  // a variant on the same sites
    CHECK(finding["verdict"]["outcome"] == "hatched");
    CHECK(finding["verdict"]["failure"] == "");  // exit status 3 is this program's normal end
    if (replayed_id.empty()) replayed_id = finding["id"];
  }
  CHECK(hunt.result.exited);
  CHECK(hunt.result.exit_status == 1);  // confirmed findings

  REQUIRE(!replayed_id.empty());
  const std::string clip = dir + "/out/clips/" + replayed_id + ".clip";
  auto replay = [&](const std::vector<std::string>& options) {
    std::vector<std::string> arguments = {"replay", "--json", "--failure-clip", "f.clip"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    arguments.insert(arguments.end(), {clip, "--", program});
    e2e::PecanRun run = e2e::RunPecanIn(dir, arguments, dir + "/replay.log");
    INFO(run.output);
    return e2e::LastJsonLine(run.output);
  };
  // state.txt is there from the last replay: the run takes another path and diverges, then
  // ends normally (status 3): refuted.
  nlohmann::json stale = replay({"--expect-exit", "3"});
  CHECK(stale["verdict"] == "infeasible");
  CHECK(stale["divergence"].is_string());
  // From the recording's state it follows the clip.
  nlohmann::json fresh = replay({"--expect-exit", "3", "--before-each", "rm -f state.txt"});
  CHECK(fresh["verdict"] == "hatched");
  CHECK(fresh["failure"].is_null());
  // Without --expect-exit, status 3 is a failure.
  nlohmann::json failing = replay({"--before-each", "rm -f state.txt"});
  CHECK(failing["verdict"] == "hatched");
  CHECK(failing["failure"] == "exit");
  CHECK(failing["exit_status"] == 3);
  // A --before-each that fails stops the replay before the program runs.
  e2e::PecanRun broken = e2e::RunPecanIn(
      dir, {"replay", "--before-each", "exit 4", clip, "--", program}, dir + "/broken.log");
  CHECK(e2e::ExitStatus(broken.result) == 2);
  CHECK_THAT(broken.output, Catch::Contains("--before-each 'exit 4' exited with status 4"));
}
