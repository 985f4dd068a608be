// pecan hunt's and triage's output directory (-o) through the real binary: a user's files there
// are never removed or overwritten, one in the way stops the command before it starts, what
// pecan wrote itself is replaced by the next run, and an -o that cannot be created is refused.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace fs = std::filesystem;

namespace {

// A user's files in DIR: beside pecan's, inside clips/ and replays/.
const std::vector<std::string> kUserFiles = {"notes.txt", "clips/mine.clip", "clips/readme.txt",
                                             "replays/my.log"};

void WriteUserFiles(const std::string& dir) {
  for (const std::string& file : kUserFiles) {
    fs::create_directories(fs::path(dir + "/" + file).parent_path());
    std::ofstream(dir + "/" + file) << "the user's " << file << "\n";
  }
}

void CheckUserFiles(const std::string& dir) {
  for (const std::string& file : kUserFiles)
    CHECK(e2e::ReadText(dir + "/" + file) == "the user's " + file + "\n");
}

size_t Clips(const std::string& dir) {
  size_t clips = 0;
  for (const auto& entry : fs::directory_iterator(dir + "/clips"))
    clips += entry.path().filename().string().rfind("race-", 0) == 0;
  return clips;
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("pecan hunt and triage leave a user's files in their output directory untouched",
          "[e2e][hunt][triage]") {
  const std::string dir = e2e::FreshDirectory("output-user-files");
  const std::string out = dir + "/out";
  const std::string program = e2e::ExampleBinary("lost_update");
  WriteUserFiles(out);

  // Twice: the second hunt replaces what the first wrote (its clips, its report), nothing else.
  for (int round = 0; round < 2; round++) {
    e2e::PecanRun hunt = e2e::RunPecan({"hunt", "-o", out, "--", program}, dir + "/hunt.log");
    INFO("round " << round << ":\n" << hunt.output);
    REQUIRE(hunt.result.exited);
    CHECK(hunt.result.exit_status == 1);
    CHECK(Clips(out) > 0);
    CheckUserFiles(out);
  }
  const size_t hunt_clips = Clips(out);

  // triage into the same directory: its own files beside hunt's, hunt's trace (its input) kept.
  const std::string triage_out = dir + "/triage";
  WriteUserFiles(triage_out);
  for (const std::string& to : {out, triage_out}) {
    e2e::PecanRun triage = e2e::RunPecan(
        {"triage", out + "/trace.pecan", "-o", to, "--replay", "--", program}, dir + "/triage.log");
    INFO(triage.output);
    REQUIRE(triage.result.exited);
    CHECK(triage.result.exit_status == 1);
    CHECK(fs::is_regular_file(to + "/summary.json"));
    CheckUserFiles(to);
  }
  CHECK(fs::is_regular_file(out + "/trace.pecan"));
  CHECK(fs::is_regular_file(out + "/report.json"));
  // triage's clips of the same findings have the same names: hunt's (one per replayed variant)
  // are among triage's (one per finding), none written twice under another name.
  size_t triage_clips = 0;
  const nlohmann::json summary = e2e::ReadJson(out + "/summary.json");
  for (const auto& finding : summary["findings"])
    triage_clips += finding["clip"].is_object();
  CHECK(hunt_clips <= triage_clips);
  CHECK(Clips(out) == triage_clips);
}

TEST_CASE("pecan hunt and triage refuse to replace a file they did not write",
          "[e2e][hunt][triage]") {
  const std::string dir = e2e::FreshDirectory("output-in-the-way");
  const std::string program = e2e::ExampleBinary("lost_update");
  const std::string out = dir + "/out";
  fs::create_directories(out);
  std::ofstream(out + "/report.json") << "{\"mine\": true}\n";
  e2e::PecanRun hunt = e2e::RunPecan({"hunt", "-o", out, "--", program}, dir + "/hunt.log");
  INFO(hunt.output);
  CHECK(hunt.result.exit_status == 2);
  CHECK(Lines(hunt.output) == 1);
  CHECK(hunt.output.rfind("pecan: error: hunt: " + out + "/report.json was not written by pecan",
                          0) == 0);
  CHECK(e2e::ReadText(out + "/report.json") == "{\"mine\": true}\n");
  CHECK(!fs::exists(out + "/trace.pecan"));  // refused before recording

  // A trace for triage, then a summary.json of the user's where triage would write its own.
  const std::string hunted = dir + "/hunted";
  REQUIRE(e2e::RunPecan({"hunt", "-o", hunted, "--", program}, dir + "/hunt.log").result.exited);
  const std::string triage_out = dir + "/triage";
  fs::create_directories(triage_out);
  std::ofstream(triage_out + "/summary.json") << "{\"mine\": true}\n";
  e2e::PecanRun triage =
      e2e::RunPecan({"triage", hunted + "/trace.pecan", "-o", triage_out}, dir + "/triage.log");
  INFO(triage.output);
  CHECK(triage.result.exit_status == 2);
  CHECK(Lines(triage.output) == 1);
  CHECK(triage.output.rfind(
            "pecan: error: triage: " + triage_out + "/summary.json was not written by pecan", 0) ==
        0);
  CHECK(e2e::ReadText(triage_out + "/summary.json") == "{\"mine\": true}\n");
  CHECK(!fs::exists(triage_out + "/summary.html"));
}

TEST_CASE("pecan hunt and triage refuse an output directory they cannot create, before starting",
          "[e2e][hunt][triage]") {
  const std::string dir = e2e::FreshDirectory("output-unwritable");
  const std::string program = e2e::ExampleBinary("lost_update");
  std::ofstream(dir + "/a-file") << "not a directory\n";
  const std::string out = dir + "/a-file/out";
  e2e::PecanRun hunt = e2e::RunPecan({"hunt", "-o", out, "--", program}, dir + "/hunt.log");
  INFO(hunt.output);
  CHECK(hunt.result.exit_status == 2);
  CHECK(hunt.output ==
        "pecan: error: hunt: cannot create the output directory " + out + ": Not a directory\n");

  const std::string trace = dir + "/t.pecan";
  REQUIRE(e2e::RunPecan({"record", "-o", trace, "--", program}, dir + "/record.log").result.exited);
  e2e::PecanRun triage = e2e::RunPecan({"triage", trace, "-o", out}, dir + "/triage.log");
  INFO(triage.output);
  CHECK(triage.result.exit_status == 2);
  CHECK(triage.output ==
        "pecan: error: triage: cannot create the output directory " + out + ": Not a directory\n");
}
