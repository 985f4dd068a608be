// Order through file descriptors (issue 19), through the real binary: a hand-off through a pipe,
// a socket pair, TCP (connect -> accept, then send -> recv) or an eventfd orders what the sender
// did before it before what the receiver does after it, so no race is predicted on the data
// handed off; accesses after the hand-off still race; a write(2) reads its buffer, which races
// with another thread's unordered fill; and hunt's replays do not wait in a blocked read.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

struct Recorded {
  std::string output;       // what the program printed
  nlohmann::json findings;  // pecan analyze's
};

Recorded RecordAndAnalyze(const std::string& program, const std::string& dir) {
  const std::string trace = dir + "/trace.pecan";
  Recorded recorded;
  const e2e::PecanRun record =
      e2e::RunPecan({"record", "-q", "-o", trace, "--", e2e::TestProgram(program)}, dir + "/r.log");
  recorded.output = record.output;
  INFO(record.output);
  REQUIRE(e2e::ExitStatus(record.result) == 0);
  REQUIRE(
      e2e::ExitStatus(e2e::RunPecan({"analyze", trace, "-f", "json", "-o", dir + "/report.json"},
                                    dir + "/a.log")
                          .result) == 0);
  recorded.findings = e2e::ReadJson(dir + "/report.json")["findings"];
  return recorded;
}

// The predicted races with an event on the variable `name`.
std::vector<nlohmann::json> RacesOn(const nlohmann::json& findings, const std::string& name) {
  std::vector<nlohmann::json> races;
  for (const auto& finding : findings) {
    if (finding["pattern"] != "race") continue;
    for (const auto& event : finding["events"]) {
      if (event.value("variable", "") != name) continue;
      races.push_back(finding);
      break;
    }
  }
  return races;
}

}  // namespace

TEST_CASE("a pipe hand-off orders the data handed off", "[e2e][fd_order]") {
  const Recorded run = RecordAndAnalyze("pipe_handoff", e2e::FreshDirectory("fd-order-pipe"));
  INFO(run.findings.dump(2));
  CHECK_THAT(run.output, Catch::Contains("shared 42"));  // the hand-off happened
  CHECK(RacesOn(run.findings, "shared").empty());
}

TEST_CASE("a socket pair hand-off orders the data handed off", "[e2e][fd_order]") {
  const Recorded run =
      RecordAndAnalyze("socketpair_handoff", e2e::FreshDirectory("fd-order-socketpair"));
  INFO(run.findings.dump(2));
  CHECK_THAT(run.output, Catch::Contains("shared 42"));
  CHECK(RacesOn(run.findings, "shared").empty());
}

TEST_CASE("TCP connect -> accept and send -> recv order the data handed off", "[e2e][fd_order]") {
  const Recorded run = RecordAndAnalyze("tcp_handoff", e2e::FreshDirectory("fd-order-tcp"));
  INFO(run.findings.dump(2));
  CHECK_THAT(run.output, Catch::Contains("payload 48"));
  CHECK(RacesOn(run.findings, "greeting").empty());  // read after accept, before recv
  CHECK(RacesOn(run.findings, "payload").empty());
}

TEST_CASE("an eventfd hand-off orders the data handed off", "[e2e][fd_order]") {
  const Recorded run = RecordAndAnalyze("eventfd_handoff", e2e::FreshDirectory("fd-order-eventfd"));
  INFO(run.findings.dump(2));
  CHECK_THAT(run.output, Catch::Contains("shared 42"));
  CHECK(RacesOn(run.findings, "shared").empty());
}

TEST_CASE("accesses after a pipe hand-off still race", "[e2e][fd_order]") {
  const Recorded run =
      RecordAndAnalyze("pipe_after_handoff", e2e::FreshDirectory("fd-order-control"));
  INFO(run.findings.dump(2));
  CHECK(RacesOn(run.findings, "shared").empty());
  const std::vector<nlohmann::json> late = RacesOn(run.findings, "late");
  REQUIRE(late.size() == 1);
  CHECK(e2e::FindingLines(late[0]) == std::multiset<int>{16, 27});  // worker's, main's write
}

TEST_CASE("write(2) reads its buffer: a race with an unordered fill", "[e2e][fd_order]") {
  const Recorded run =
      RecordAndAnalyze("write_buffer_race", e2e::FreshDirectory("fd-order-write-buffer"));
  INFO(run.findings.dump(2));
  constexpr int kFillLine = 13;
  constexpr int kWriteCallLine = 22;
  const nlohmann::json* race = nullptr;
  for (const auto& finding : run.findings)
    if (finding["pattern"] == "race" &&
        e2e::FindingLines(finding) == std::multiset<int>{kFillLine, kWriteCallLine})
      race = &finding;
  REQUIRE(race != nullptr);
  for (const auto& event : (*race)["events"]) {
    const int line = event["site"].value("line", 0);
    CHECK(event["kind"] == (line == kWriteCallLine ? "read" : "write"));
    CHECK_THAT(event.value("variable", ""), Catch::Contains("message"));
  }
}

TEST_CASE("pecan hunt of the pipe hand-off confirms nothing and never times out",
          "[e2e][fd_order][hunt]") {
  const std::string dir = e2e::FreshDirectory("fd-order-hunt");
  const std::string out = dir + "/out";
  const auto start = std::chrono::steady_clock::now();
  const e2e::PecanRun run =
      e2e::RunPecan({"hunt", "--budget", "15", "-o", out, "--", e2e::TestProgram("pipe_handoff")},
                    dir + "/hunt.log", 120);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 0);
  CHECK(seconds < 15 + 12);  // a run under way at the end of the budget may finish
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  CHECK(verdicts["counts"]["predicted"] == 0);
  CHECK(verdicts["counts"]["confirmed"] == 0);
  CHECK(verdicts["counts"]["replay_errors"] == 0);
  REQUIRE(verdicts.contains("explore"));
  CHECK(verdicts["explore"]["stopped"] == "budget spent");
  CHECK(verdicts["explore"]["failures"].empty());  // no deadlock, no timeout
  // The explored runs: the worker's read, blocked until main writes, handed the turn on each
  // time; a turn held in the kernel would have been taken away after 20 ms (an idle handover).
  size_t runs = 0;
  uint64_t idle_handovers = 0;
  for (const auto& entry : std::filesystem::directory_iterator(out + "/explore")) {
    const std::string fuzz = entry.path().string() + "/fuzz.json";
    if (!entry.is_directory() || !std::filesystem::exists(fuzz)) continue;
    const nlohmann::json summary = e2e::ReadJson(fuzz);
    for (const auto& explored : summary["runs"]) {
      ++runs;
      idle_handovers += explored.value("idle_handovers", uint64_t{0});
    }
  }
  CHECK(runs > 0);
  CHECK(idle_handovers == 0);
}

TEST_CASE("pecan hunt confirms the race after a pipe hand-off by replaying through the read",
          "[e2e][fd_order][hunt]") {
  const std::string dir = e2e::FreshDirectory("fd-order-hunt-control");
  const std::string out = dir + "/out";
  const e2e::PecanRun run = e2e::RunPecan(
      {"hunt", "--no-explore", "-o", out, "--", e2e::TestProgram("pipe_after_handoff")},
      dir + "/hunt.log", 120);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 1);  // a confirmed finding
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  // Only the race on `late`: none on `shared` to be refuted by a replay stuck in the read.
  CHECK(verdicts["counts"]["predicted"] == 1);
  CHECK(verdicts["counts"]["refuted"] == 0);
  REQUIRE(verdicts["counts"]["confirmed"] == 1);
  for (const auto& finding : verdicts["findings"]) {
    INFO(e2e::Describe(finding));
    CHECK(e2e::FindingLines(finding) == std::multiset<int>{16, 27});
    CHECK(finding["confirmed"] == true);
  }
}
