// Lock-order deadlocks a normal run does not show: pecan predicts them from one recorded run,
// writes a clip that brings every thread of the cycle to its request, and the replay deadlocks
// (verdict "deadlocked") every time; guarded, fork-ordered, trylock and read-only rwlock orders
// are not reported.
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

// The deadlock findings of `pecan analyze --format json` on a recording of the program.
std::vector<nlohmann::json> PredictedDeadlocks(const std::string& dir, const std::string& name,
                                               const std::vector<std::string>& program) {
  const std::string trace = dir + "/" + name + ".pecan";
  std::vector<std::string> record = {"record", "-o", trace, "--"};
  record.insert(record.end(), program.begin(), program.end());
  const e2e::PecanRun recorded = e2e::RunPecan(record, dir + "/" + name + "-record.log", 60);
  INFO(recorded.output);
  REQUIRE(e2e::ExitStatus(recorded.result) == 0);
  const std::string report = dir + "/" + name + ".json";
  const e2e::PecanRun analyzed =
      e2e::RunPecan({"analyze", "--patterns", "deadlock", "--format", "json", "-o", report, trace},
                    dir + "/" + name + "-analyze.log");
  INFO(analyzed.output);
  REQUIRE(e2e::ExitStatus(analyzed.result) == 0);
  const nlohmann::json findings = e2e::ReadJson(report)["findings"];
  REQUIRE(findings.is_array());
  std::vector<nlohmann::json> deadlocks;
  for (const auto& finding : findings) {
    if (finding["pattern"] == "deadlock") deadlocks.push_back(finding);
  }
  return deadlocks;
}

// pecan hunt --patterns deadlock: its verdicts.json.
nlohmann::json Hunt(const std::string& out, const std::vector<std::string>& program,
                    int expected_exit = 1) {
  // Prediction is the subject: no exploring after it (--no-explore).
  std::vector<std::string> arguments = {"hunt", "--patterns", "deadlock", "--no-explore",
                                        "-o",   out,          "--"};
  arguments.insert(arguments.end(), program.begin(), program.end());
  const e2e::PecanRun hunt = e2e::RunPecan(arguments, out + ".log", 240);
  INFO(hunt.output);
  CHECK(e2e::ExitStatus(hunt.result) == expected_exit);
  return e2e::ReadJson(out + "/verdicts.json");
}

// The one deadlock finding of a hunt, confirmed by its replay deadlocking.
nlohmann::json ConfirmedDeadlock(const nlohmann::json& verdicts, const std::string& variant) {
  std::vector<nlohmann::json> deadlocks;
  for (const auto& finding : verdicts["findings"]) {
    if (finding["pattern"] == "deadlock") deadlocks.push_back(finding);
  }
  INFO(verdicts.dump(2));
  REQUIRE(deadlocks.size() == 1);
  const nlohmann::json& finding = deadlocks.front();
  CHECK(finding["variant"] == variant);
  REQUIRE(finding["verdict"].is_object());
  CHECK(finding["verdict"]["outcome"] == "deadlocked");
  CHECK(finding["verdict"]["failure"] == "deadlock");
  CHECK(finding["confirmed"] == true);
  CHECK(verdicts["counts"]["confirmed"].get<int>() >= 1);
  return finding;
}

}  // namespace

TEST_CASE(
    "A transfer deadlock that the recorded run did not show is predicted and its clip "
    "deadlocks 10 times out of 10",
    "[e2e][deadlock]") {
  const std::string dir = e2e::FreshDirectory("deadlock-transfer");
  const std::string program = e2e::TestProgram("transfer");
  const nlohmann::json verdicts = Hunt(dir + "/hunt", {program});
  const nlohmann::json finding = ConfirmedDeadlock(verdicts, "cycle of 2 locks");
  // Per thread: the lock it holds (transfer.c:29), then its request (transfer.c:36).
  REQUIRE(finding["events"].size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(finding["events"][i]["site"]["line"] == (i % 2 == 0 ? 29 : 36));
    CHECK(finding["events"][i]["kind"] == "lock");
  }
  CHECK(finding["events"][0]["thread"] != finding["events"][2]["thread"]);
  // The analyzer's report: each request with the lock its thread holds.
  const nlohmann::json report = e2e::ReadJson(dir + "/hunt/report.json")["findings"];
  bool listed = false;
  for (const auto& f : report) {
    if (f["pattern"] != "deadlock") continue;
    listed = true;
    CHECK(f["events"][0]["locks_held"].empty());
    CHECK(f["events"][1]["locks_held"] == nlohmann::json::array({f["events"][0]["variable"]}));
    CHECK(f["events"][3]["locks_held"] == nlohmann::json::array({f["events"][2]["variable"]}));
  }
  CHECK(listed);
  // hunt's page: the finding, confirmed by a deadlock.
  const std::string html = e2e::ReadText(dir + "/hunt/report.html");
  CHECK_THAT(html, Catch::Contains(finding["id"].get<std::string>()));
  CHECK_THAT(html, Catch::Contains("confirmed, deadlock"));
  const std::string clip = finding["clip"]["path"];
  for (int i = 0; i < 10; ++i) {
    const e2e::PecanRun replay =
        e2e::RunPecan({"replay", "--json", clip, "--", program}, dir + "/replay.log", 60);
    INFO("replay " << i << ":\n" << replay.output);
    const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
    REQUIRE(verdict.is_object());
    CHECK(verdict["verdict"] == "deadlocked");
    CHECK(verdict["failure"] == "deadlock");
    CHECK_THAT(verdict["failure_message"].get<std::string>(),
               Catch::Contains("waits for lock `alice") && Catch::Contains("waits for lock `bob"));
    CHECK(e2e::ExitStatus(replay.result) == 0);
  }
}

TEST_CASE(
    "pecan triage --replay reports the transfer deadlock as confirmed, with both "
    "acquisitions of each thread and the locks held",
    "[e2e][deadlock][triage]") {
  const std::string dir = e2e::FreshDirectory("deadlock-triage");
  const std::string program = e2e::TestProgram("transfer");
  const std::string trace = dir + "/transfer.pecan";
  const e2e::PecanRun record =
      e2e::RunPecan({"record", "-o", trace, "--", program}, dir + "/record.log", 60);
  REQUIRE(e2e::ExitStatus(record.result) == 0);
  const e2e::PecanRun triage = e2e::RunPecan(
      {"triage", trace, "-o", dir + "/out", "--replay", "--", program}, dir + "/triage.log", 240);
  INFO(triage.output);
  const nlohmann::json summary = e2e::ReadJson(dir + "/out/summary.json");
  const nlohmann::json findings = summary["findings"];
  std::vector<nlohmann::json> deadlocks;
  for (const auto& finding : findings) {
    if (finding["pattern"] == "deadlock") deadlocks.push_back(finding);
  }
  REQUIRE(deadlocks.size() == 1);
  CHECK(deadlocks[0]["confirmed"] == true);
  CHECK(deadlocks[0]["verdict"]["outcome"] == "deadlocked");
  REQUIRE(deadlocks[0]["events"].size() == 4);
  CHECK(deadlocks[0]["events"][0]["variable"] == "alice");
  CHECK(deadlocks[0]["events"][1]["variable"] == "bob");
  const std::string html = e2e::ReadText(dir + "/out/summary.html");
  CHECK_THAT(html, Catch::Contains("confirmed, deadlock"));
  // The failure clip the deadlocked replay wrote (the run it executed) deadlocks again when
  // replayed: it is followed as a run's clip, not read as a deadlock prediction.
  REQUIRE(deadlocks[0]["verdict"].contains("failure_clip"));
  const std::string failure_clip = deadlocks[0]["verdict"]["failure_clip"];
  const e2e::PecanRun again = e2e::RunPecan(
      {"replay", "--json", failure_clip, "--", program}, dir + "/again.log", 60);
  INFO(again.output);
  const nlohmann::json verdict = e2e::LastJsonLine(again.output);
  REQUIRE(verdict.is_object());
  CHECK(verdict["verdict"] == "followed");
  CHECK(verdict["failure"] == "deadlock");
}

TEST_CASE("A cycle of three locks over three stages is predicted and deadlocks in replay",
          "[e2e][deadlock]") {
  const std::string dir = e2e::FreshDirectory("deadlock-ring");
  const nlohmann::json finding = ConfirmedDeadlock(
      Hunt(dir + "/hunt", {e2e::TestProgram("pipeline_ring")}), "cycle of 3 locks");
  std::multiset<int> lines;
  for (const auto& event : finding["events"]) lines.insert(event["site"]["line"].get<int>());
  CHECK(lines == std::multiset<int>{25, 26, 35, 36, 45, 46});
}

TEST_CASE(
    "Dining philosophers, 2 to 7 at the table: the cycle is predicted and deadlocks, "
    "and the ordered fix is not reported",
    "[e2e][deadlock]") {
  const std::string dir = e2e::FreshDirectory("deadlock-philosophers");
  const std::string program = e2e::TestProgram("dining_philosophers");
  for (int n = 2; n <= 7; ++n) {
    INFO("philosophers: " << n);
    const std::string count = std::to_string(n);
    ConfirmedDeadlock(Hunt(dir + "/hunt-" + count, {program, count}),
                      "cycle of " + count + " locks");
  }
  for (int n : {2, 5}) {
    INFO("ordered, philosophers: " << n);
    CHECK(PredictedDeadlocks(dir, "ordered-" + std::to_string(n),
                             {program, std::to_string(n), "ordered"})
              .empty());
  }
}

TEST_CASE("Guarded, fork-ordered and trylock transfers are not reported as deadlocks",
          "[e2e][deadlock]") {
  const std::string dir = e2e::FreshDirectory("deadlock-correct");
  const std::string program = e2e::TestProgram("transfer");
  for (const char* variant : {"guarded", "forked", "trylock"}) {
    INFO(variant);
    CHECK(PredictedDeadlocks(dir, variant, {program, variant}).empty());
  }
  // The plain transfer, recorded the same way, is (the test above replays it).
  CHECK(PredictedDeadlocks(dir, "plain", {program}).size() == 1);
}

TEST_CASE("An rwlock order deadlocks only when the late request is for writing",
          "[e2e][deadlock]") {
  const std::string dir = e2e::FreshDirectory("deadlock-rwlock");
  const std::string program = e2e::TestProgram("rwlock_order");
  CHECK(PredictedDeadlocks(dir, "read", {program, "read"}).empty());
  const nlohmann::json finding =
      ConfirmedDeadlock(Hunt(dir + "/hunt-write", {program, "write"}), "cycle of 2 locks");
  std::multiset<int> lines;
  for (const auto& event : finding["events"]) lines.insert(event["site"]["line"].get<int>());
  CHECK(lines == std::multiset<int>{21, 22, 31, 33});
}
