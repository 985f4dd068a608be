// A recorded run and its clips reproduce on demand, through the real binary: the same command
// records the same events whatever address randomization does, its recorded clip replays to the
// end every time, a worker that outlives main leaves no accesses without their locks, and a
// program's unfinished last output line does not hide replay's verdict from hunt.
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"
#include "trace_format/trace_reader.h"

namespace {

std::string TestProgram(const std::string& name) {
  for (const auto& [program, path] : kTestProgramBinaries)
    if (program == name) return path;
  throw std::runtime_error("no test program named " + name);
}

int ExitStatus(const pecan::cli::ChildResult& result) {
  return result.exited ? result.exit_status : 128 + result.signal;
}

// `env -i pecan ARGS...`: an empty environment, so the program's arguments and environment
// strings are small and the page that holds them is laid out differently in each run.
e2e::PecanRun RunPecanWithoutEnvironment(const std::vector<std::string>& arguments,
                                         const std::string& log_path) {
  pecan::cli::ChildSpec spec;
  spec.argv = {"/usr/bin/env", "-i", kPecanBinary};
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  spec.timeout_seconds = 120;
  e2e::PecanRun run;
  run.result = pecan::cli::RunChild(spec);
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

// The --json verdict: the last line of the output that starts with '{'.
nlohmann::json LastJsonLine(const std::string& output) {
  nlohmann::json verdict;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind('{', 0) != 0) continue;
    verdict = nlohmann::json::parse(line, nullptr, false);
  }
  return verdict;
}

}  // namespace

TEST_CASE("a program reading its arguments records the same events every time and replays",
          "[e2e][replay][stable]") {
  const std::string dir = e2e::FreshDirectory("replay-holds-arguments");
  const std::string program = TestProgram("parse_operands");
  const std::vector<std::string> command = {program, "-v", "-r", "3", "12", "345", "6789"};
  std::set<uint64_t> counts;
  for (int i = 0; i < 20; ++i) {
    const std::string trace = dir + "/trace-" + std::to_string(i) + ".pecan";
    std::vector<std::string> arguments = {"record", "-q", "-o", trace, "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    e2e::PecanRun record = RunPecanWithoutEnvironment(arguments, dir + "/record.log");
    INFO(record.output);
    REQUIRE(ExitStatus(record.result) == 0);
    counts.insert(EventCount(trace));
  }
  INFO("distinct event counts: " << counts.size() << " (smallest " << *counts.begin()
                                 << ", largest " << *counts.rbegin() << ")");
  CHECK(counts.size() == 1);

  e2e::PecanRun clips = e2e::RunPecan(
      {"clips", dir + "/trace-0.pecan", "--recorded", "-o", dir + "/clips"}, dir + "/clips.log");
  INFO(clips.output);
  REQUIRE(ExitStatus(clips.result) == 0);
  int followed = 0;
  for (int i = 0; i < 20; ++i) {
    std::vector<std::string> arguments = {"replay", "--json", dir + "/clips/recorded.clip", "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    e2e::PecanRun replay = RunPecanWithoutEnvironment(arguments, dir + "/replay.log");
    const nlohmann::json verdict = LastJsonLine(replay.output);
    INFO("replay " << i << ":\n" << replay.output);
    CHECK(ExitStatus(replay.result) == 0);
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
  const std::string program = TestProgram("unfinished_line");
  // The program's stdout and pecan's are one file, as when hunt collects a replay's output.
  e2e::PecanRun record =
      e2e::RunPecan({"record", "-q", "-o", dir + "/trace.pecan", "--", program}, dir + "/r.log");
  REQUIRE(ExitStatus(record.result) == 0);
  REQUIRE(
      ExitStatus(e2e::RunPecan({"clips", dir + "/trace.pecan", "--recorded", "-o", dir + "/clips"},
                               dir + "/c.log")
                     .result) == 0);
  e2e::PecanRun replay = e2e::RunPecan(
      {"replay", "--json", dir + "/clips/recorded.clip", "--", program}, dir + "/replay.log");
  INFO(replay.output);
  CHECK_THAT(replay.output, Catch::Contains("count 3\n{"));
  CHECK(LastJsonLine(replay.output)["verdict"] == "followed");

  // hunt reads that verdict: its race is confirmed, not "exited without a verdict".
  e2e::PecanRun hunt =
      e2e::RunPecan({"hunt", "-o", dir + "/hunt", "--", program}, dir + "/hunt.log");
  INFO(hunt.output);
  CHECK_THAT(hunt.output, !Catch::Contains("without a verdict"));
  const nlohmann::json findings = e2e::ReadJson(dir + "/hunt/verdicts.json")["findings"];
  REQUIRE(!findings.empty());
  for (const auto& finding : findings) {
    INFO(finding.dump());
    CHECK(finding["verdict"]["outcome"] != "error");
  }
}

TEST_CASE("a worker that still locks while main returns: no access without its lock",
          "[e2e][record]") {
  const std::string dir = e2e::FreshDirectory("replay-holds-worker-outlives-main");
  const std::string program = TestProgram("worker_outlives_main");
  for (int i = 0; i < 5; ++i) {
    const std::string trace = dir + "/trace.pecan";
    e2e::PecanRun record =
        e2e::RunPecan({"record", "-q", "-o", trace, "--", program}, dir + "/record.log");
    INFO(record.output);
    REQUIRE(ExitStatus(record.result) == 0);
    e2e::PecanRun analyze = e2e::RunPecan(
        {"analyze", trace, "-f", "json", "-o", dir + "/report.json"}, dir + "/analyze.log");
    INFO(analyze.output);
    REQUIRE(ExitStatus(analyze.result) == 0);
    const nlohmann::json report = e2e::ReadJson(dir + "/report.json");
    INFO("recording " << i << ": " << report["findings"].dump());
    CHECK(report["findings"].empty());
  }
}
