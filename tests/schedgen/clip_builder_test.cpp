// From a ClipPlan to a .clip file and back, and the three dump formats of a clip: Figure 5's
// clip, whose schedule moves T0's critical section behind T1's.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include <unistd.h>

#include "analyzer/lockset_table.h"
#include "analyzer/por_index.h"
#include "schedgen/clip_builder.h"
#include "schedgen/clip_dump.h"
#include "schedgen/schedule_generator.h"
#include "std_trace.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"

namespace pecan {
namespace {

using test::StdTrace;

const char* kFigure5 =
    "T0|acq(l)|1\n"
    "T0|w(y)|2\n"
    "T0|w(x)|3\n"
    "T0|rel(l)|4\n"
    "T1|r(z)|5\n"
    "T1|acq(l)|6\n"
    "T1|rel(l)|7\n"
    "T1|w(x)|8\n";

struct Figure5Clip {
  Trace trace = StdTrace(kFigure5);
  PorIndex por{trace};
  LocksetTable locksets{trace};
  Finding finding;
  ClipPlan plan;
  proto::Clip clip;

  Figure5Clip() {
    trace.meta.program = "/bin/figure5";
    trace.meta.args = {"-n", "2"};
    finding.id = "race-f5";
    finding.pattern = "race";
    finding.variant = "W-W";
    finding.adjacent = true;
    finding.events = {2, 7};
    finding.reason = "no common lock, no POR";
    plan = ScheduleGenerator(trace, por).Generate(finding);
    REQUIRE(plan.ok);
    clip = ClipFromPlan(trace, locksets, finding, plan, "feedface");
  }
};

TEST_CASE("ClipFromPlan fills the clip as clip.proto describes", "[schedgen][clip]") {
  Figure5Clip f;
  const proto::Clip& clip = f.clip;
  CHECK(clip.trace_hash() == "feedface");
  CHECK(clip.program() == "/bin/figure5");
  CHECK(clip.args_size() == 2);
  CHECK(clip.generator() == "race+oml");
  // v5 v6 v7 | v1 v2 v3 | v8: runs T1x3, T0x3, T1x1.
  CHECK(std::vector<uint32_t>(clip.run_thread().begin(), clip.run_thread().end()) ==
        std::vector<uint32_t>{1, 0, 1});
  CHECK(std::vector<uint32_t>(clip.run_length().begin(), clip.run_length().end()) ==
        std::vector<uint32_t>{3, 3, 1});
  CHECK(std::vector<uint64_t>(clip.step_origin().begin(), clip.step_origin().end()) ==
        std::vector<uint64_t>{4, 5, 6, 0, 1, 2, 7});
  CHECK(clip.step_kind(3) == static_cast<uint32_t>(EventKind::kLock));
  CHECK(clip.step_site(0) == f.trace.site[4]);
  CHECK(std::vector<uint64_t>(clip.anomaly_steps().begin(), clip.anomaly_steps().end()) ==
        std::vector<uint64_t>{5, 6});
  CHECK(clip.moved_steps_size() == 3);
  // Only the sites the steps use (all 7 but v4's).
  CHECK(clip.sites_size() == 7);
  CHECK(clip.threads_size() == 2);
  const proto::Finding& finding = clip.finding();
  CHECK(finding.id() == "race-f5");
  REQUIRE(finding.events_size() == 2);
  CHECK(finding.events(0).kind() == proto::WRITE);
  CHECK(finding.events(0).thread() == 0);
  // v3 runs holding l; v8 holds nothing.
  REQUIRE(finding.events(0).locks_held_size() == 1);
  CHECK(finding.events(0).locks_held(0) == f.trace.addr[0]);
  CHECK(finding.events(1).locks_held_size() == 0);
}

TEST_CASE("a generated clip survives the file round trip", "[schedgen][clip]") {
  Figure5Clip f;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan_builder_test_" + std::to_string(::getpid()) + ".clip"))
                               .string();
  WriteClipFile(path, f.clip);
  const proto::Clip back = ReadClipFile(path);
  std::filesystem::remove(path);
  CHECK(std::vector<uint64_t>(back.step_origin().begin(), back.step_origin().end()) ==
        std::vector<uint64_t>(f.clip.step_origin().begin(), f.clip.step_origin().end()));
  CHECK(back.finding().events(0).locks_held(0) == f.trace.addr[0]);
}

TEST_CASE("clip dump: text", "[schedgen][clip][dump]") {
  Figure5Clip f;
  std::ostringstream out;
  DumpClip(f.clip, "text", out);
  const std::string text = out.str();
  CHECK_THAT(text, Catch::Contains("for finding race-f5 (race W-W, predicted)"));
  CHECK_THAT(text, Catch::Contains("generator  race+oml"));
  CHECK_THAT(text, Catch::Contains("7 in 3 runs, 3 moved"));
  CHECK_THAT(text, Catch::Contains("loc 3"));
  CHECK_THAT(text, Catch::Contains("moved  anomaly 1/2"));
  CHECK_THAT(text, Catch::Contains("anomaly 2/2"));
}

TEST_CASE("clip dump: std re-imports as the schedule, anomalies marked", "[schedgen][clip][dump]") {
  Figure5Clip f;
  std::ostringstream out;
  DumpClip(f.clip, "std", out);
  const std::string text = out.str();
  CHECK_THAT(text, Catch::Contains("# anomaly 1/2\nT0|w(V0x"));
  CHECK_THAT(text, Catch::Contains("|3\n# anomaly 2/2\nT1|w(V0x"));
  CHECK_THAT(text, Catch::Contains("T1|acq(?)|6\n"));
  const Trace schedule = StdTrace(text, "clip.std");
  REQUIRE(schedule.size_events() == 7);
  // Locations (STD sites) and kinds follow the schedule.
  const std::vector<uint64_t> locations{5, 6, 7, 1, 2, 3, 8};
  for (size_t s = 0; s < 7; ++s) {
    CHECK(schedule.sites[schedule.site[s]].offset == locations[s]);
    CHECK(static_cast<uint32_t>(schedule.kind[s]) == f.clip.step_kind(static_cast<int>(s)));
  }
  // Both anomaly events name the same variable.
  CHECK(schedule.addr[5] == schedule.addr[6]);
}

TEST_CASE("clip dump: json lines", "[schedgen][clip][dump]") {
  Figure5Clip f;
  std::ostringstream out;
  DumpClip(f.clip, "json", out);
  std::istringstream lines(out.str());
  std::string line;
  REQUIRE(std::getline(lines, line));
  const auto header = nlohmann::json::parse(line);
  CHECK(header["type"] == "clip");
  CHECK(header["steps"] == 7);
  CHECK(header["finding"]["id"] == "race-f5");
  CHECK(header["finding"]["events"][0]["locks_held"].size() == 1);
  int steps = 0, anomalies = 0;
  while (std::getline(lines, line)) {
    const auto step = nlohmann::json::parse(line);
    CHECK(step["type"] == "step");
    CHECK(step["step"] == steps);
    if (step.contains("anomaly")) ++anomalies;
    ++steps;
  }
  CHECK(steps == 7);
  CHECK(anomalies == 2);
  CHECK_THROWS_AS(DumpClip(f.clip, "xml", out), PecanError);
}

}  // namespace
}  // namespace pecan
