// Stack and TLS variables other threads reach, through the real binary (issue 19): their races
// are predicted although a thread's own stack is not recorded by default, and purely local
// stack traffic still goes unrecorded (recorder/stack_sharing.h).
#include <regex>
#include <string>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

// Records `program` with `options` and returns the JSON report of `pecan analyze`.
nlohmann::json RecordAndAnalyze(const std::string& name, const std::string& program,
                                const std::vector<std::string>& options = {}) {
  const std::string dir = e2e::FreshDirectory("stack-escape-" + name);
  const std::string trace = dir + "/trace.pecan";
  std::vector<std::string> record = {"record", "-q", "-o", trace};
  record.insert(record.end(), options.begin(), options.end());
  record.insert(record.end(), {"--", program});
  REQUIRE(e2e::ExitStatus(e2e::RunPecan(record, dir + "/r.log").result) == 0);
  REQUIRE(e2e::ExitStatus(
              e2e::RunPecan({"analyze", trace, "--format", "json", "-o", dir + "/report.json"},
                            dir + "/a.log")
                  .result) == 0);
  return e2e::ReadJson(dir + "/report.json");
}

bool HasRace(const nlohmann::json& report, const std::multiset<int>& lines) {
  for (const auto& finding : report["findings"])
    if (finding["pattern"] == "race" && e2e::FindingLines(finding) == lines) return true;
  return false;
}

// The "events:" line of `pecan stats`.
uint64_t RecordedEvents(const std::string& dir, const std::vector<std::string>& options) {
  const std::string trace = dir + "/trace.pecan";
  std::vector<std::string> record = {"record", "-q", "-o", trace};
  record.insert(record.end(), options.begin(), options.end());
  record.insert(record.end(), {"--", e2e::TestProgram("stack_local")});
  REQUIRE(e2e::ExitStatus(e2e::RunPecan(record, dir + "/r.log").result) == 0);
  e2e::PecanRun stats = e2e::RunPecan({"stats", trace}, dir + "/stats.log");
  INFO(stats.output);
  std::smatch match;
  REQUIRE(std::regex_search(stats.output, match, std::regex("events: +([0-9]+)")));
  return std::stoull(match[1]);
}

}  // namespace

TEST_CASE("a local handed to a thread through pthread_create: the creator's later write races",
          "[e2e][stack]") {
  const nlohmann::json report = RecordAndAnalyze("handoff", e2e::TestProgram("stack_handoff"));
  INFO("report:\n" << report.dump(2));
  CHECK(HasRace(report, {13, 22}));
}

TEST_CASE(
    "a worker's local published through a global: the owner's read after another "
    "thread's write races with it",
    "[e2e][stack]") {
  const nlohmann::json report = RecordAndAnalyze("publish", e2e::TestProgram("stack_publish"));
  INFO("report:\n" << report.dump(2));
  CHECK(HasRace(report, {16, 28}));
}

TEST_CASE(
    "a worker's TLS variable whose address another thread writes through races with the "
    "owner's read",
    "[e2e][stack]") {
  const nlohmann::json report = RecordAndAnalyze("tls", e2e::TestProgram("tls_publish"));
  INFO("report:\n" << report.dump(2));
  CHECK(HasRace(report, {18, 28}));
}

TEST_CASE("purely local stack traffic stays unrecorded unless PECAN_STACK_ACCESSES=1",
          "[e2e][stack]") {
  // Every repeat recorded, so the locals' traffic would show in full.
  const uint64_t by_default =
      RecordedEvents(e2e::FreshDirectory("stack-escape-local"), {"--repeats", "all"});
  const uint64_t with_stack = RecordedEvents(e2e::FreshDirectory("stack-escape-local-all"),
                                             {"--repeats", "all", "--stack-accesses"});
  INFO("default: " << by_default << " events, --stack-accesses: " << with_stack);
  // The workers' and main's SumLocal make 3 x 1000 x 128 accesses to their arrays alone.
  CHECK(with_stack > 300'000);
  // What is left: thread and function events, `results` and main's frame after the creates.
  CHECK(by_default < 1'000);
}
