// --suppressions FILE through the real binary: pecan analyze, hunt and triage hide the findings a
// ThreadSanitizer-style file names and count them; the others stay, with their ids; a bad file
// stops each command at once with one line; parts of a triage with other suppressions are not
// merged.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace fs = std::filesystem;

namespace {

std::string Write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

std::vector<std::string> Ids(const nlohmann::json& findings) {
  std::vector<std::string> ids;
  for (const auto& finding : findings) ids.push_back(finding["id"]);
  return ids;
}

}  // namespace

TEST_CASE("pecan analyze, hunt and triage hide the findings a suppressions file names",
          "[e2e][suppressions]") {
  const std::string dir = e2e::FreshDirectory("suppressions");
  fs::create_directories(dir + "/traces");
  for (const std::string program : {"lost_update", "pecan_figure1"})
    REQUIRE(e2e::RunPecan({"record", "-q", "-o", dir + "/traces/" + program + ".pecan", "--",
                           e2e::ExampleBinary(program)},
                          dir + "/record.log")
                .result.exit_status == 0);
  const std::string lost_update = dir + "/traces/lost_update.pecan";
  // lost_update's races are all in add_batch; pecan_figure1's in thread_t1 and thread_t2.
  const std::string hide_add_batch =
      Write(dir + "/add_batch.supp", "# accepted for now\nrace:^add_batch$\nsignal:ignored\n");

  // analyze: without the file, lost_update's races; with it, none, and the summary counts them.
  e2e::PecanRun plain = e2e::RunPecan(
      {"analyze", "-f", "json", "-o", dir + "/plain.json", lost_update}, dir + "/plain.log");
  REQUIRE(plain.result.exit_status == 0);
  const nlohmann::json all = e2e::ReadJson(dir + "/plain.json");
  REQUIRE(all["findings"].size() >= 2);
  e2e::PecanRun hidden = e2e::RunPecan({"analyze", "-f", "json", "-o", dir + "/hidden.json",
                                        "--suppressions", hide_add_batch, lost_update},
                                       dir + "/hidden.log");
  INFO(hidden.output);
  REQUIRE(hidden.result.exit_status == 0);
  CHECK(e2e::ReadJson(dir + "/hidden.json")["findings"].empty());
  CHECK(hidden.output.find("; " + std::to_string(all["findings"].size()) + " suppressed") !=
        std::string::npos);
  CHECK(hidden.output.find("pecan: warning: " + hide_add_batch + ":3: 'signal:'") !=
        std::string::npos);
  // A rule for another function hides nothing; the ids stay what they were.
  const std::string other = Write(dir + "/other.supp", "race:parse_header\natomicity:add_batch\n");
  REQUIRE(e2e::RunPecan({"analyze", "-f", "json", "-o", dir + "/other.json", "--suppressions",
                         other, lost_update},
                        dir + "/other.log")
              .result.exit_status == 0);
  CHECK(Ids(e2e::ReadJson(dir + "/other.json")["findings"]) == Ids(all["findings"]));

  // hunt: pecan_figure1's races hidden by their file: nothing replayed, nothing confirmed.
  const std::string figure1 = Write(dir + "/figure1.supp", "race:pecan_figure1.c\n");
  e2e::PecanRun hunt = e2e::RunPecan({"hunt", "-o", dir + "/hunt", "--no-explore", "--suppressions",
                                      figure1, "--", e2e::ExampleBinary("pecan_figure1")},
                                     dir + "/hunt.log");
  INFO(hunt.output);
  CHECK(hunt.result.exit_status == 0);
  CHECK(hunt.output.find("0 predictions (and 3 hidden by --suppressions)") != std::string::npos);
  const nlohmann::json verdicts = e2e::ReadJson(dir + "/hunt/verdicts.json");
  CHECK(verdicts["findings"].empty());
  CHECK(verdicts["counts"]["suppressed"] == 3);

  // triage: lost_update's races hidden, pecan_figure1's kept.
  e2e::PecanRun triage = e2e::RunPecan(
      {"triage", dir + "/traces", "-o", dir + "/triage", "--suppressions", hide_add_batch},
      dir + "/triage.log");
  INFO(triage.output);
  REQUIRE(triage.result.exit_status == 0);
  const nlohmann::json summary = e2e::ReadJson(dir + "/triage/summary.json");
  REQUIRE_FALSE(summary["findings"].empty());
  for (const auto& finding : summary["findings"])
    for (const auto& event : finding["events"])
      CHECK(event["site"].value("function", "") != "add_batch");
  // Parts triaged with and without the file are not one triage.
  REQUIRE(e2e::RunPecan({"triage", dir + "/traces", "--shard", "0/2", "-o", dir + "/part0",
                         "--suppressions", hide_add_batch},
                        dir + "/p0.log")
              .result.exit_status == 0);
  REQUIRE(e2e::RunPecan({"triage", dir + "/traces", "--shard", "1/2", "-o", dir + "/part1"},
                        dir + "/p1.log")
              .result.exit_status == 0);
  e2e::PecanRun merge = e2e::RunPecan(
      {"triage", "merge", "-o", dir + "/merged", dir + "/part0", dir + "/part1"}, dir + "/m.log");
  CHECK(merge.result.exit_status == 2);
  CHECK(merge.output.find("other --suppressions") != std::string::npos);

  // A bad file stops each command before any work, with one line.
  const std::string bad = Write(dir + "/bad.supp", "race:ok\nrace\n");
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"analyze", "--suppressions", bad, lost_update},
        std::vector<std::string>{"hunt", "-o", dir + "/bad-hunt", "--suppressions", bad, "--",
                                 e2e::ExampleBinary("pecan_figure1")},
        std::vector<std::string>{"triage", dir + "/traces", "-o", dir + "/bad-triage",
                                 "--suppressions", bad}}) {
    e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/bad.log");
    INFO(arguments[0] << ": " << run.output);
    CHECK(run.result.exit_status == 2);
    CHECK(run.output.rfind("pecan: error: " + arguments[0] + ": --suppressions " + bad +
                               ":2: expected TYPE:PATTERN",
                           0) == 0);
    CHECK(std::count(run.output.begin(), run.output.end(), '\n') == 1);
  }
  CHECK_FALSE(fs::exists(dir + "/bad-hunt/trace.pecan"));  // the program never ran
}
