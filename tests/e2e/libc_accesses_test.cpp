// What libc touches, through the real binary (issue 19): memcpy, memset and strlen are range
// accesses of the bytes they touch, and the init/destroy of a synchronization object writes it
// while every lock reads it, so races through them are predicted and replay confirms them.
#include <string>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

// libc_buffer_race.c: the worker's memcpy and count, the reporter's strlen and memcpy, main's
// memset.
constexpr int kPublishLine = 19;
constexpr int kCountLine = 20;
constexpr int kMeasureLine = 27;
constexpr int kCopyOutLine = 29;
constexpr int kResetLine = 39;

// mutex_destroyed_while_used.c: the worker's lock, main's destroy.
constexpr int kLockLine = 18;
constexpr int kDestroyLine = 31;

nlohmann::json AnalyzeJson(const std::string& program, const std::string& dir) {
  const std::string trace = dir + "/trace.pecan";
  e2e::PecanRun record =
      e2e::RunPecan({"record", "-q", "-o", trace, "--", program}, dir + "/r.log");
  INFO("record:\n" << record.output);
  REQUIRE(e2e::ExitStatus(record.result) == 0);
  e2e::PecanRun analyze = e2e::RunPecan(
      {"analyze", trace, "--format", "json", "-o", dir + "/report.json"}, dir + "/a.log");
  INFO("analyze:\n" << analyze.output);
  REQUIRE(e2e::ExitStatus(analyze.result) == 0);
  return e2e::ReadJson(dir + "/report.json");
}

// `pecan hunt` without exploring: its verdicts.json.
nlohmann::json HuntVerdicts(const std::string& program, const std::string& dir) {
  const std::string out = dir + "/out";
  e2e::PecanRun run = e2e::RunPecan(
      {"hunt", "-o", out, "--budget", "20", "--no-explore", "--", program}, dir + "/hunt.log");
  INFO("output:\n" << run.output);
  REQUIRE(run.result.exited);
  return e2e::ReadJson(out + "/verdicts.json");
}

const nlohmann::json* RaceAt(const nlohmann::json& findings, const std::multiset<int>& lines) {
  for (const auto& finding : findings)
    if (finding["pattern"] == "race" && e2e::FindingLines(finding) == lines) return &finding;
  return nullptr;
}

// The kinds of a finding's two events, in trace order.
std::string Kinds(const nlohmann::json& finding) {
  return finding["events"][0]["kind"].get<std::string>() + "-" +
         finding["events"][1]["kind"].get<std::string>();
}

}  // namespace

TEST_CASE("races through memcpy, strlen and memset are predicted at the calls' lines",
          "[e2e][libc]") {
  const std::string dir = e2e::FreshDirectory("libc-buffers");
  const nlohmann::json report = AnalyzeJson(e2e::TestProgram("libc_buffer_race"), dir);
  INFO("report:\n" << report.dump(2));
  // The worker's memcpy writes the status line before the reporter's strlen and memcpy read it.
  const nlohmann::json* measure = RaceAt(report["findings"], {kPublishLine, kMeasureLine});
  REQUIRE(measure != nullptr);
  CHECK(Kinds(*measure) == "write-read");
  const nlohmann::json* copy_out = RaceAt(report["findings"], {kPublishLine, kCopyOutLine});
  REQUIRE(copy_out != nullptr);
  CHECK(Kinds(*copy_out) == "write-read");
  // The worker's count, then main's memset of all four counters.
  const nlohmann::json* reset = RaceAt(report["findings"], {kCountLine, kResetLine});
  REQUIRE(reset != nullptr);
  CHECK((*reset)["events"][1]["kind"] == "write");
  CHECK((*reset)["events"][1]["variable"].get<std::string>().find("counters") != std::string::npos);
}

TEST_CASE("pecan hunt confirms the memcpy race by replaying the reporter's read first",
          "[e2e][libc]") {
  const nlohmann::json verdicts =
      HuntVerdicts(e2e::TestProgram("libc_buffer_race"), e2e::FreshDirectory("libc-buffers-hunt"));
  const nlohmann::json* race = RaceAt(verdicts["findings"], {kPublishLine, kMeasureLine});
  REQUIRE(race != nullptr);
  INFO(e2e::Describe(*race));
  CHECK((*race)["confirmed"] == true);
}

TEST_CASE("a mutex destroyed while a worker may still lock it is a predicted race", "[e2e][libc]") {
  const std::string dir = e2e::FreshDirectory("mutex-destroyed");
  const nlohmann::json report = AnalyzeJson(e2e::TestProgram("mutex_destroyed_while_used"), dir);
  INFO("report:\n" << report.dump(2));
  const nlohmann::json* race = RaceAt(report["findings"], {kLockLine, kDestroyLine});
  REQUIRE(race != nullptr);
  CHECK(Kinds(*race) == "read-write");  // recorded: the lock, then the destroy
  // The heap block that holds the mutex names it.
  CHECK((*race)["events"][1]["variable"].get<std::string>().find("heap block") !=
        std::string::npos);
}

TEST_CASE("pecan hunt confirms the destroy racing with the lock", "[e2e][libc]") {
  const nlohmann::json verdicts = HuntVerdicts(e2e::TestProgram("mutex_destroyed_while_used"),
                                               e2e::FreshDirectory("mutex-destroyed-hunt"));
  const nlohmann::json* race = RaceAt(verdicts["findings"], {kLockLine, kDestroyLine});
  REQUIRE(race != nullptr);
  INFO(e2e::Describe(*race));
  CHECK((*race)["confirmed"] == true);
}
