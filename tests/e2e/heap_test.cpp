// Heap blocks through the real binary (issue 19): a free is a write of its whole block, so a
// use after free at shutdown is predicted as a race between the free and the read, named by the
// block's allocation site, and its clip's replay confirms it.
#include <string>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

// free_at_shutdown.c: the worker's read, main's free, the malloc in make_buffer.
constexpr int kReadLine = 21;
constexpr int kFreeLine = 31;
constexpr int kAllocLine = 13;

const nlohmann::json* FreeRace(const nlohmann::json& findings) {
  for (const auto& finding : findings)
    if (finding["pattern"] == "race" &&
        e2e::FindingLines(finding) == std::multiset<int>{kReadLine, kFreeLine})
      return &finding;
  return nullptr;
}

}  // namespace

TEST_CASE("pecan analyze predicts a free racing with a read and names the heap block",
          "[e2e][heap]") {
  const std::string dir = e2e::FreshDirectory("heap-analyze");
  const std::string trace = dir + "/trace.pecan";
  const std::string program = e2e::TestProgram("free_at_shutdown");
  REQUIRE(e2e::ExitStatus(
              e2e::RunPecan({"record", "-q", "-o", trace, "--", program}, dir + "/r.log").result) ==
          0);
  e2e::PecanRun json = e2e::RunPecan(
      {"analyze", trace, "--format", "json", "-o", dir + "/report.json"}, dir + "/a.log");
  REQUIRE(e2e::ExitStatus(json.result) == 0);
  const nlohmann::json report = e2e::ReadJson(dir + "/report.json");
  INFO("report:\n" << report.dump(2));
  const nlohmann::json* race = FreeRace(report["findings"]);
  REQUIRE(race != nullptr);
  CHECK((*race)["variant"] == "R-W");  // recorded: the read, then the free
  const auto& events = (*race)["events"];
  REQUIRE(events.size() == 2);
  CHECK(events[0]["kind"] == "read");
  CHECK(events[1]["kind"] == "free");
  const std::string block = "heap block of 16 bytes allocated by ";
  const std::string site =
      " at free_at_shutdown.c:" + std::to_string(kAllocLine) + " (in make_buffer)";
  const std::string read_variable = events[0]["variable"];
  const std::string free_variable = events[1]["variable"];
  CHECK(read_variable.rfind("byte 8 of a " + block, 0) == 0);
  CHECK(read_variable.find(site) != std::string::npos);
  CHECK(free_variable.rfind(block, 0) == 0);
  CHECK(free_variable.find(site) != std::string::npos);

  // The text report says the same, in words: main frees the block.
  e2e::PecanRun text = e2e::RunPecan({"analyze", trace}, dir + "/text.log");
  INFO("text:\n" << text.output);
  CHECK(text.output.find("frees '" + free_variable + "'") != std::string::npos);
}

TEST_CASE("pecan hunt confirms the use after free by replaying the free before the read",
          "[e2e][heap]") {
  const std::string dir = e2e::FreshDirectory("heap-hunt");
  const std::string out = dir + "/out";
  e2e::PecanRun run = e2e::RunPecan(
      {"hunt", "-o", out, "--budget", "15", "--", e2e::TestProgram("free_at_shutdown")},
      dir + "/hunt.log");
  INFO("output:\n" << run.output);
  REQUIRE(run.result.exited);
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  const nlohmann::json* race = FreeRace(verdicts["findings"]);
  REQUIRE(race != nullptr);
  INFO(e2e::Describe(*race));
  CHECK((*race)["confirmed"] == true);
  bool named = false;
  for (const auto& event : (*race)["events"])
    named |= event.value("variable", "").find("heap block of 16 bytes allocated by ") !=
             std::string::npos;
  CHECK(named);
}
