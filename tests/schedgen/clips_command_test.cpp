// `pecan clips` and `pecan dump CLIP` through the built binary, on STD traces: one line per clip,
// --only (and an unknown id), "no feasible clip", a report of another trace, --recorded checked
// by the validator, and a clip printed as strict STD.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tests/support/cli_workspace.h"
#include "tests/support/text_lines.h"
#include "trace_format/std_format.h"

namespace pecan {
namespace {

using pecan::test::Lines;

using RunResult = test::CliRun;
using test::ReadWholeFile;

// A scratch folder; `pecan` runs in it (tests/support/cli_workspace.h).
struct Workspace : test::CliWorkspace {
  Workspace() : CliWorkspace("clips-command-test", PECAN_BINARY) {}
};

// Two races: on x (events 2, 3) and on y (events 4, 5).
const char* kTwoRaces =
    "T0|fork(T1)|1\n"
    "T1|begin|2\n"
    "T0|w(x)|3\n"
    "T1|w(x)|4\n"
    "T0|w(y)|5\n"
    "T1|r(y)|6\n"
    "T1|end|7\n"
    "T0|join(T1)|8\n";

std::vector<std::string> FindingIds(const std::string& report_path) {
  std::ifstream in(report_path);
  const nlohmann::json report = nlohmann::json::parse(in);
  std::vector<std::string> ids;
  for (const auto& finding : report["findings"]) ids.push_back(finding["id"]);
  return ids;
}

size_t ClipFiles(const std::string& dir) {
  if (!std::filesystem::exists(dir)) return 0;
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    count += entry.path().extension() == ".clip";
  return count;
}

TEST_CASE("pecan clips prints one line per clip and --only picks findings by id",
          "[schedgen][clip][cli]") {
  Workspace ws;
  ws.Write("races.std", kTwoRaces);
  RunResult analyze = ws.Pecan("analyze races.std -f json -o report.json");
  INFO(analyze.err);
  REQUIRE(analyze.status == 0);
  const std::vector<std::string> ids = FindingIds(ws.Path("report.json"));
  REQUIRE(ids.size() >= 2);

  RunResult all = ws.Pecan("clips races.std --report report.json -o all");
  INFO(all.out << all.err);
  CHECK(all.status == 0);
  const std::vector<std::string> lines = Lines(all.out);
  CHECK(lines.size() == ids.size());
  CHECK(ClipFiles(ws.Path("all")) == ids.size());
  for (const std::string& id : ids) {
    bool printed = false;
    for (const std::string& line : lines)
      printed =
          printed || (line.rfind(id + "  ", 0) == 0 && line.find(" ok ") != std::string::npos);
    CHECK(printed);
    CHECK(std::filesystem::exists(ws.Path("all/" + id + ".clip")));
  }

  RunResult only = ws.Pecan("clips races.std --report report.json --only " + ids[1] + " -o one");
  INFO(only.out << only.err);
  CHECK(only.status == 0);
  REQUIRE(Lines(only.out).size() == 1);
  CHECK(Lines(only.out)[0].rfind(ids[1] + "  ", 0) == 0);
  CHECK(ClipFiles(ws.Path("one")) == 1);
  CHECK(std::filesystem::exists(ws.Path("one/" + ids[1] + ".clip")));

  RunResult unknown = ws.Pecan("clips races.std --report report.json --only race-nope -o none");
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err, Catch::Contains("--only race-nope: no finding with this id"));
  CHECK(ClipFiles(ws.Path("none")) == 0);
}

TEST_CASE("pecan clips says 'no feasible clip' for a finding no schedule can show",
          "[schedgen][clip][cli]") {
  Workspace ws;
  ws.Write("races.std", kTwoRaces);
  // The fork (event 0) is ordered before everything T1 does: never adjacent to T1's write.
  ws.Write("report.json",
           R"({"findings": [
                {"id": "race-feasible", "pattern": "race", "adjacent": true,
                 "events": [{"index": 4}, {"index": 5}]},
                {"id": "race-impossible", "pattern": "race", "adjacent": true,
                 "events": [{"index": 0}, {"index": 3}]}]})");
  RunResult run = ws.Pecan("clips races.std --report report.json -o out");
  INFO(run.out << run.err);
  CHECK(run.status == 0);
  const std::vector<std::string> lines = Lines(run.out);
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Catch::StartsWith("race-feasible  race  ") && Catch::Contains(" ok "));
  CHECK_THAT(lines[1], Catch::StartsWith("race-impossible  race  -  no feasible clip: ") &&
                           Catch::Contains("by POR"));
  CHECK(ClipFiles(ws.Path("out")) == 1);
  CHECK_THAT(run.err, Catch::Contains("1 finding(s) without a feasible clip"));
}

TEST_CASE("pecan clips refuses a report made from another trace", "[schedgen][clip][cli]") {
  Workspace ws;
  ws.Write("races.std", kTwoRaces);
  ws.Write("other.std", std::string(kTwoRaces) + "T0|w(x)|9\n");
  REQUIRE(ws.Pecan("analyze other.std -f json -o other.json").status == 0);
  RunResult run = ws.Pecan("clips races.std --report other.json -o out");
  CHECK(run.status == 2);
  CHECK_THAT(run.err, Catch::Contains("other.json: the report was made from another trace"));
  CHECK(ClipFiles(ws.Path("out")) == 0);
}

TEST_CASE("pecan clips --recorded checks the recorded order like every clip",
          "[schedgen][clip][cli]") {
  Workspace ws;
  ws.Write("races.std", kTwoRaces);
  RunResult good = ws.Pecan("clips races.std --recorded -o good");
  INFO(good.out << good.err);
  CHECK(good.status == 0);
  CHECK_THAT(good.out, Catch::StartsWith("recorded  8 steps  ok  "));
  CHECK(std::filesystem::exists(ws.Path("good/recorded.clip")));

  // T1 takes l while T0 holds it: no run can have this order.
  ws.Write("broken.std",
           "T0|fork(T1)|1\n"
           "T0|acq(l)|2\n"
           "T1|acq(l)|3\n"
           "T1|rel(l)|4\n"
           "T0|rel(l)|5\n");
  RunResult broken = ws.Pecan("clips broken.std --recorded -o broken");
  CHECK(broken.status == 2);
  CHECK_THAT(broken.err, Catch::Contains("broken.std: the recorded order fails the schedule "
                                         "check, so no clip was written") &&
                             Catch::Contains("while T0 holds it"));
  CHECK(Lines(broken.err).size() == 1);
  CHECK_FALSE(std::filesystem::exists(ws.Path("broken/recorded.clip")));
}

TEST_CASE("pecan dump CLIP --format std --strict-std prints plain STD with anomaly markers",
          "[schedgen][clip][dump][cli]") {
  Workspace ws;
  ws.Write("races.std", kTwoRaces);
  ws.Write("report.json",
           R"({"findings": [{"id": "race-y", "pattern": "race", "adjacent": true,
                             "events": [{"index": 4}, {"index": 5}]}]})");
  REQUIRE(ws.Pecan("clips races.std --report report.json -o out").status == 0);
  const std::string clip = ws.Path("out/race-y.clip");

  RunResult loose = ws.Pecan("dump " + clip + " --format std");
  RunResult strict = ws.Pecan("dump " + clip + " --format std --strict-std");
  INFO(loose.out << "---\n" << strict.out << strict.err);
  REQUIRE(loose.status == 0);
  REQUIRE(strict.status == 0);
  // Without --strict-std the thread's begin is an event line; with it, a comment.
  CHECK_THAT(loose.out, Catch::Contains("\nT1|begin|2\n"));
  CHECK_THAT(strict.out, Catch::Contains("\n# T1|begin|2"));
  const std::set<std::string> plain{"r", "w", "acq", "rel", "fork", "join"};
  int markers = 0;
  bool marker_before_event = false;
  const std::vector<std::string> lines = Lines(strict.out);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("# anomaly ", 0) == 0) {
      ++markers;
      marker_before_event = i + 1 < lines.size() && lines[i + 1][0] != '#';
      continue;
    }
    if (lines[i].empty() || lines[i][0] == '#') continue;
    const size_t bar = lines[i].find('|');
    const size_t end = lines[i].find_first_of("(|", bar + 1);
    INFO(lines[i]);
    CHECK(plain.count(lines[i].substr(bar + 1, end - bar - 1)) == 1);
  }
  CHECK(markers == 2);
  CHECK(marker_before_event);
  CHECK_THAT(strict.out, Catch::Contains("# anomaly 1/2\nT0|w(V0x"));
  CHECK_THAT(strict.out, Catch::Contains("# anomaly 2/2\nT1|r(V0x"));

  // Both re-import; the strict one has the extension events left out.
  std::istringstream loose_in(loose.out);
  std::istringstream strict_in(strict.out);
  const Trace loose_trace = ImportStd(loose_in, "loose.std");
  const Trace strict_trace = ImportStd(strict_in, "strict.std");
  // fork, begin, both writes of x, the race on y; cut after it (no end, no join).
  CHECK(loose_trace.size_events() == 6);
  CHECK(strict_trace.size_events() == 5);  // the same without T1's begin
}

}  // namespace
}  // namespace pecan
