// `pecan hunt`'s command-line contract through the real binary: exit status 2 with one
// "pecan: error:" line for every mistake (checked before anything is recorded), the report's
// order (confirmed, refuted, no clip), the files in DIR, a report.sarif that reflects the
// verdicts, and replay commands that work as printed.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace fs = std::filesystem;

namespace {

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// The first word of a printed command line and the rest.
std::pair<std::string, std::string> FirstWord(const std::string& line) {
  const size_t space = line.find(' ');
  return {line.substr(0, space), space == std::string::npos ? "" : line.substr(space + 1)};
}

}  // namespace

TEST_CASE("pecan hunt rejects mistakes with one line and exit status 2, before recording",
          "[e2e][hunt]") {
  const std::string dir = e2e::FreshDirectory("hunt-cli-errors");
  const std::string out = dir + "/out";
  const std::string program = e2e::ExampleBinary("lost_update");
  const std::string bad_patterns = dir + "/bad.patterns";
  std::ofstream(bad_patterns) << "this is not the pattern language\n";
  struct Case {
    std::vector<std::string> arguments;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"hunt", "-o", out, "--", dir + "/no-such-program"}, "no-such-program: no such executable"},
      {{"hunt", "-o", out, "--", "pecan-e2e-no-such-program"}, "not found in PATH"},
      {{"hunt", "-o", out, "--jobs", "0", "--", program}, "--jobs"},
      {{"hunt", "-o", out, "--regions", "foo", "--", program}, "--regions"},
      {{"hunt", "-o", out, "--no-such-option", "--", program}, "--no-such-option"},
      {{"hunt", "-o", out}, "command is required"},
      {{"hunt", "-o", out, "--patterns", "nosuch", "--", program}, "nosuch"},
      {{"hunt", "-o", out, "--patterns", "race,nosuch", "--", program}, "nosuch"},
      {{"hunt", "-o", out, "--patterns", bad_patterns, "--", program}, "bad.patterns"},
      {{"hunt", "-o", out, "--source-root", dir + "/no-such-dir", "--", program}, "--source-root"},
  };
  for (const auto& [arguments, message] : cases) {
    // A previous hunt's results stay: nothing was run, so nothing is replaced.
    fs::create_directories(out);
    std::ofstream(out + "/verdicts.json") << "{\"previous\": true}\n";
    e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/run.log");
    std::string words;
    for (const auto& word : arguments) words += " " + word;
    INFO("pecan" << words << "\noutput:\n" << run.output);
    CHECK(run.result.exited);
    CHECK(run.result.exit_status == 2);
    CHECK(run.output.rfind("pecan: error: ", 0) == 0);
    CHECK(Lines(run.output) == 1);
    CHECK(run.output.find(message) != std::string::npos);
    CHECK_FALSE(fs::exists(out + "/trace.pecan"));
    CHECK(e2e::ReadText(out + "/verdicts.json") == "{\"previous\": true}\n");
  }

  // A program not built with pecan: record's own reason, not the last line of its advice. (In a
  // directory of its own: pecan would not replace the verdicts.json above, which it did not write.)
  e2e::PecanRun run =
      e2e::RunPecan({"hunt", "-o", dir + "/out-true", "--", "/bin/true"}, dir + "/run.log");
  INFO("output:\n" << run.output);
  CHECK(run.result.exit_status == 2);
  CHECK(Lines(run.output) == 1);
  CHECK(run.output.rfind("pecan: error: hunt: cannot record /bin/true: /bin/true was not built "
                         "for recording",
                         0) == 0);
  CHECK(run.output.find("record.log") != std::string::npos);
  CHECK(run.output.find("CMake") == std::string::npos);
}

TEST_CASE(
    "pecan hunt reports confirmed, then exposed, then refuted and clip-less findings, and "
    "fills DIR",
    "[e2e][hunt]") {
  const std::string dir = e2e::FreshDirectory("hunt-cli-report");
  const std::string out = dir + "/out";
  const std::string program = e2e::ExampleBinary("racefuzzer_example");
  e2e::PecanRun run = e2e::RunPecan({"hunt", "-o", out, "--", program}, dir + "/hunt.log");
  INFO("output:\n" << run.output);
  REQUIRE(run.result.exited);
  CHECK(run.result.exit_status == 1);  // a confirmed finding

  for (const char* leaf :
       {"trace.pecan", "report.json", "report.sarif", "verdicts.json", "record.log"})
    CHECK(fs::is_regular_file(out + "/" + leaf));
  CHECK(fs::is_directory(out + "/clips"));
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  const auto& counts = verdicts["counts"];
  CHECK(counts["confirmed"] == 1);
  // The false race's replay diverges (thread2 reads y == 0); kept serialized, the run then
  // reaches the real bug's assertion: a failure exposed, not a confirmation.
  CHECK(counts["exposed"] == 1);
  CHECK(counts["refuted"] == 0);
  size_t clips = 0;
  for (const auto& entry : fs::directory_iterator(out + "/clips"))
    clips += entry.path().extension() == ".clip";
  CHECK(clips == counts["predicted"].get<size_t>() - counts["no_clip"].get<size_t>());

  // The order of the report: the confirmed section (with its finding), the failures replays
  // exposed, the refuted count, then the findings without a feasible clip.
  const size_t confirmed = run.output.find("CONFIRMED by replay (1):\n1. race R-W on 'z'");
  const size_t exposed = run.output.find("\nFAILED in replay, though not as predicted (1):\n");
  const size_t refuted = run.output.find("\nRefuted by replay: 0 predictions ");
  const size_t no_clip = run.output.find("\nNo feasible clip: ");
  REQUIRE(confirmed != std::string::npos);
  REQUIRE(exposed != std::string::npos);
  REQUIRE(refuted != std::string::npos);
  REQUIRE(no_clip != std::string::npos);
  CHECK(confirmed < exposed);
  CHECK(exposed < refuted);
  CHECK(refuted < no_clip);
  CHECK(run.output.find("racefuzzer_example.c:29", confirmed) < exposed);
  CHECK(run.output.find("racefuzzer_example.c:25", exposed) < refuted);
  CHECK(run.output.find("assertion `seen != 1' failed", exposed) < refuted);
  CHECK(run.output.find("reproduce the failure: ", exposed) < refuted);

  // report.sarif holds what replay found: the confirmed race as an error, listed first, and the
  // race whose replay made the program fail as an error too (refuted ones would be no result,
  // only named in the run's properties).
  std::string confirmed_id, exposed_id;
  for (const auto& finding : verdicts["findings"]) {
    if (finding["confirmed"] == true) confirmed_id = finding["id"];
    if (finding["verdict"].is_object() && finding["verdict"]["outcome"] == "exposed")
      exposed_id = finding["id"];
  }
  const nlohmann::json sarif = e2e::ReadJson(out + "/report.sarif");
  REQUIRE(sarif["runs"].size() == 1);
  const auto& results = sarif["runs"][0]["results"];
  REQUIRE(results.size() == 2);
  CHECK(results[0]["level"] == "error");
  CHECK(results[0]["partialFingerprints"]["pecanFinding/v1"] == confirmed_id);
  CHECK(results[0]["properties"]["verdict"] == "hatched");
  CHECK(results[0]["properties"]["failure"] == "assertion");
  CHECK(results[1]["level"] == "error");
  CHECK(results[1]["partialFingerprints"]["pecanFinding/v1"] == exposed_id);
  CHECK(results[1]["properties"]["verdict"] == "exposed");
  CHECK(sarif["runs"][0]["properties"]["refutedByReplay"].empty());
  // The sources are not below the working directory: absolute file URIs.
  CHECK(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        "file://" + std::string(kExamplesSourceDir) + "/racefuzzer_example.c");

  // The printed replay command works as printed, from where hunt ran.
  const std::string command = verdicts["findings"][0].value("replay_command", "");
  CHECK(run.output.find("   replay: " + command + "\n") != std::string::npos);
  CHECK(FirstWord(command).first == kPecanBinary);  // `pecan` on PATH is not this build
  pecan::workflow::ChildSpec replay;
  replay.argv = {"/bin/sh", "-c", command};
  replay.stdout_path = dir + "/replay.log";
  replay.stderr_path = dir + "/replay.log";
  replay.timeout_seconds = 120;
  pecan::workflow::ChildResult replayed = pecan::workflow::RunChild(replay);
  INFO("replay output:\n" << e2e::ReadText(dir + "/replay.log"));
  CHECK(replayed.exited);
  CHECK(replayed.exit_status == 0);
  CHECK(e2e::ReadText(dir + "/replay.log").find("hatched") != std::string::npos);
}

TEST_CASE("pecan hunt prints commands and SARIF paths for where it runs", "[e2e][hunt]") {
  // From the source tree (as in the README): the pecan binary and the sources named relative
  // to it, unless `pecan` on PATH is this very binary.
  const std::string dir = e2e::FreshDirectory("hunt-cli-cwd");
  const std::string tree = e2e::SourceTree();
  const std::string program = e2e::ExampleBinary("pecan_figure1");
  e2e::PecanRun run =
      e2e::RunPecanIn(tree, {"hunt", "-o", dir + "/out", "--", program}, dir + "/hunt.log");
  INFO("output:\n" << run.output);
  CHECK(run.result.exit_status == 1);
  nlohmann::json verdicts = e2e::ReadJson(dir + "/out/verdicts.json");
  REQUIRE_FALSE(verdicts["findings"].empty());
  const std::string pecan = FirstWord(verdicts["findings"][0].value("replay_command", "")).first;
  CHECK(fs::equivalent(fs::path(tree) / pecan, kPecanBinary));

  nlohmann::json sarif = e2e::ReadJson(dir + "/out/report.sarif");
  const auto& run0 = sarif["runs"][0];
  REQUIRE_FALSE(run0["results"].empty());
  const auto& location = run0["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  CHECK(location["uri"] == "examples/pecan_figure1.c");
  CHECK(location["uriBaseId"] == "SRCROOT");
  CHECK(run0["originalUriBaseIds"]["SRCROOT"]["uri"] == "file://" + tree + "/");

  // --source-root names another base; `pecan` on PATH being this binary shortens the command.
  const std::string bin = fs::path(kPecanBinary).parent_path().string();
  const char* path = std::getenv("PATH");
  run = e2e::RunPecanIn(
      tree, {"hunt", "-o", dir + "/out2", "--source-root", "examples", "--", program},
      dir + "/hunt2.log", {{"PATH", bin + ":" + (path ? path : "/usr/bin:/bin")}});
  INFO("second output:\n" << run.output);
  verdicts = e2e::ReadJson(dir + "/out2/verdicts.json");
  REQUIRE_FALSE(verdicts["findings"].empty());
  for (const auto& finding : verdicts["findings"])
    CHECK(finding.value("replay_command", "").rfind("pecan replay ", 0) == 0);
  sarif = e2e::ReadJson(dir + "/out2/report.sarif");
  CHECK(sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
             ["uri"] == "pecan_figure1.c");
  CHECK(sarif["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] ==
        "file://" + std::string(kExamplesSourceDir) + "/");
}
