// `pecan hunt` on every example program, through the real binary: the confirmed findings are
// the expected ones at the expected source lines, ending the program as expected (failure and
// signal in examples/expected.json), listed with those that failed the program first; every
// failure comes with a failure clip that fails the same way in 10 replays; the correct programs
// yield nothing confirmed, refuted predictions stay refuted (some exposing a failure), and hunts
// agree.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

struct HuntOutcome {
  int exit_status = -1;
  std::string log;
  nlohmann::json verdicts;
};

HuntOutcome Hunt(const std::string& example, const std::string& output_name) {
  nlohmann::json expected = e2e::Expectations()["programs"][example];
  std::string dir = e2e::FreshDirectory(output_name);
  std::vector<std::string> arguments = {"hunt", "-o", dir + "/out", "--jobs", "2"};
  for (const auto& argument : expected["hunt_args"])
    arguments.push_back(argument.get<std::string>());
  arguments.push_back("--");
  arguments.push_back(e2e::ExampleBinary(example));
  e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/hunt.log");
  HuntOutcome outcome;
  outcome.exit_status = run.result.exited ? run.result.exit_status : 128 + run.result.signal;
  outcome.log = run.output;
  if (std::filesystem::exists(dir + "/out/verdicts.json"))
    outcome.verdicts = e2e::ReadJson(dir + "/out/verdicts.json");
  return outcome;
}

bool Confirmed(const nlohmann::json& finding) {
  return finding.value("confirmed", false);
}

void CheckHunt(const std::string& example) {
  nlohmann::json expected = e2e::Expectations()["programs"][example];
  HuntOutcome hunt = Hunt(example, "hunt-" + example);
  INFO("pecan hunt output:\n" << hunt.log);
  REQUIRE(hunt.verdicts.is_object());
  const nlohmann::json& findings = hunt.verdicts["findings"];
  std::string all;
  for (const auto& f : findings) all += "  " + e2e::Describe(f) + "\n";
  INFO("findings:\n" << all);

  const std::string source = expected["source"];
  std::set<int> involved;
  for (const auto& line : expected["involved_lines"]) involved.insert(line.get<int>());

  size_t confirmed = 0;
  for (const auto& finding : findings) {
    if (!Confirmed(finding)) continue;
    confirmed++;
    INFO("confirmed: " << e2e::Describe(finding));
    for (const auto& event : finding["events"]) {
      CHECK(std::filesystem::path(event["site"].value("file", "")).filename() == source);
      CHECK(involved.count(event["site"].value("line", 0)) == 1);
    }
  }
  size_t failed = 0;
  for (const auto& finding : findings) {
    if (!finding.value("failed", false)) continue;
    failed++;
    // Every replay that made the program fail left the clip of that run: its reproducer.
    INFO("failed: " << e2e::Describe(finding));
    REQUIRE(finding["verdict"].contains("failure_clip"));
    const std::string failure_clip = finding["verdict"]["failure_clip"];
    REQUIRE(std::filesystem::exists(failure_clip));
    // ... and fails the same way on every replay.
    for (int i = 0; i < 10; ++i) {
      e2e::PecanRun replay =
          e2e::RunPecan({"replay", "--json", failure_clip, "--", e2e::ExampleBinary(example)},
                        failure_clip + ".replay.log");
      const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
      INFO("replay " << i << " of the failure clip:\n" << replay.output);
      REQUIRE(verdict.is_object());
      CHECK(verdict["verdict"] == "followed");
      CHECK(verdict["failure"] == finding["verdict"]["failure"]);
      CHECK(verdict["steps_executed"] == verdict["steps_total"]);
    }
  }
  // Nothing failed in replay: the hunt explored the rest of its budget. A correct example must
  // not fail there either.
  if (failed == 0) {
    REQUIRE(hunt.verdicts.contains("explore"));
    INFO("explore: " << hunt.verdicts["explore"].dump());
    if (expected["confirmed"].empty()) {
      CHECK(hunt.verdicts["explore"]["failures"].empty());
      CHECK(hunt.verdicts["explore"]["stopped"] == "budget spent");
    }
    failed += hunt.verdicts["explore"]["failures"].size();
  }
  CHECK(hunt.exit_status == (confirmed + failed > 0 ? 1 : 0));

  // The report's order: findings whose replay made the program fail (confirmed or not), then
  // the other confirmed ones, then the rest.
  auto rank = [](const nlohmann::json& f) {
    if (f.value("failed", false)) return 0;
    return Confirmed(f) ? 1 : 2;
  };
  std::vector<int> ranks;
  for (const auto& finding : findings) ranks.push_back(rank(finding));
  CHECK(std::is_sorted(ranks.begin(), ranks.end()));
  size_t last_confirmed = 0;
  for (const auto& finding : findings)
    if (Confirmed(finding)) {
      const size_t at = hunt.log.find("   replay: " + finding.value("replay_command", ""));
      CHECK(at != std::string::npos);
      CHECK(at > last_confirmed);  // printed in the same order
      last_confirmed = at;
    }

  for (const auto& want : expected["confirmed"]) {
    std::multiset<int> lines;
    for (const auto& line : want["lines"]) lines.insert(line.get<int>());
    const std::string pattern = want["pattern"];
    // failure (and signal), where expected.json gives them: how the program ended after the
    // replay hatched the anomaly.
    auto match = std::find_if(findings.begin(), findings.end(), [&](const nlohmann::json& f) {
      return Confirmed(f) && f["pattern"] == pattern && e2e::FindingLines(f) == lines &&
             (!want.contains("failure") || f["verdict"].value("failure", "") == want["failure"]) &&
             (!want.contains("signal") || f["verdict"].value("signal", 0) == want["signal"]);
    });
    INFO("expected confirmed: " << want.dump());
    CHECK(match != findings.end());
  }
  for (const auto& want : expected.value("exposed", nlohmann::json::array())) {
    std::multiset<int> lines;
    for (const auto& line : want["lines"]) lines.insert(line.get<int>());
    auto match = std::find_if(findings.begin(), findings.end(), [&](const nlohmann::json& f) {
      return f["pattern"] == want["pattern"] && e2e::FindingLines(f) == lines &&
             f["verdict"].is_object() && f["verdict"].value("outcome", "") == "exposed" &&
             f["verdict"].value("failure", "") == want["failure"];
    });
    INFO("expected exposed: " << want.dump());
    CHECK(match != findings.end());
  }
  for (const auto& want : expected["refuted"]) {
    std::multiset<int> lines;
    for (const auto& line : want["lines"]) lines.insert(line.get<int>());
    bool predicted = false;
    for (const auto& f : findings) {
      if (f["pattern"] != want["pattern"] || e2e::FindingLines(f) != lines) continue;
      predicted = true;
      INFO("must be refuted: " << e2e::Describe(f));
      CHECK_FALSE(Confirmed(f));
    }
    INFO("expected refuted prediction: " << want.dump());
    CHECK(predicted);
  }
}

std::set<std::string> ConfirmedKeys(const HuntOutcome& hunt) {
  std::set<std::string> keys;
  if (!hunt.verdicts.is_object()) return keys;
  for (const auto& f : hunt.verdicts["findings"])
    if (Confirmed(f))
      keys.insert(f.value("pattern", "") + " " + f.value("variant", "") + " " + e2e::Describe(f));
  return keys;
}

}  // namespace

#define PECAN_HUNT_EXAMPLE(name)                                                               \
  TEST_CASE("pecan hunt " #name " confirms what examples/expected.json says", "[e2e][hunt]") { \
    CheckHunt(#name);                                                                          \
  }

PECAN_HUNT_EXAMPLE(pecan_figure1)
PECAN_HUNT_EXAMPLE(openjms_init_race)
PECAN_HUNT_EXAMPLE(jigsaw_event_queue)
PECAN_HUNT_EXAMPLE(racefuzzer_example)
PECAN_HUNT_EXAMPLE(drfinder_hidden_race)
PECAN_HUNT_EXAMPLE(lost_update)
PECAN_HUNT_EXAMPLE(lazy_init)
PECAN_HUNT_EXAMPLE(account_invariant)
PECAN_HUNT_EXAMPLE(queue_size_pop)
PECAN_HUNT_EXAMPLE(correct_condvar)
PECAN_HUNT_EXAMPLE(correct_fork_join)
PECAN_HUNT_EXAMPLE(correct_publication)

TEST_CASE("Every example in expected.json has a test above", "[e2e][hunt]") {
  std::set<std::string> tested = {
      "pecan_figure1",        "openjms_init_race", "jigsaw_event_queue", "racefuzzer_example",
      "drfinder_hidden_race", "lost_update",       "lazy_init",          "account_invariant",
      "queue_size_pop",       "correct_condvar",   "correct_fork_join",  "correct_publication"};
  for (const auto& [name, entry] : e2e::Expectations()["programs"].items())
    CHECK(tested.count(name) == 1);
}

TEST_CASE("Repeated hunts of one program confirm the same findings", "[e2e][hunt]") {
  for (const std::string example : {"pecan_figure1", "queue_size_pop", "drfinder_hidden_race"}) {
    HuntOutcome first = Hunt(example, "repeat-a-" + example);
    HuntOutcome second = Hunt(example, "repeat-b-" + example);
    INFO(example << "\nfirst:\n" << first.log << "\nsecond:\n" << second.log);
    CHECK_FALSE(ConfirmedKeys(first).empty());
    CHECK(ConfirmedKeys(first) == ConfirmedKeys(second));
    CHECK(first.exit_status == second.exit_status);
  }
}
