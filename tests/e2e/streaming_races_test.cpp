// `pecan analyze --patterns race` of a recorded .pecan trace searches the file with the streaming
// race search and reports from the events the report reads (analyzer/streaming_races.h,
// analyzer/report_trace.h). Its reports must be the ones the indexed analysis gives: --ptg-dot
// makes analyze read the analysis's trace and run Analyze() on it, so the two are compared on
// real recorded programs, text and JSON.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

// The report without its timings (the JSON's stats hold seconds).
nlohmann::json WithoutTimes(nlohmann::json report) {
  if (report.contains("stats")) {
    for (auto it = report["stats"].begin(); it != report["stats"].end();) {
      if (it.key().find("seconds") != std::string::npos) {
        it = report["stats"].erase(it);
      } else {
        ++it;
      }
    }
  }
  return report;
}

}  // namespace

TEST_CASE("race analysis of a recorded trace reports what the indexed analysis reports",
          "[e2e][streaming_races]") {
  const std::vector<std::string> programs = {
      e2e::ExampleBinary("lost_update"), e2e::ExampleBinary("jigsaw_event_queue"),
      e2e::ExampleBinary("queue_size_pop"), e2e::TestProgram("write_buffer_race"),
      e2e::TestProgram("pcompress")};
  size_t findings = 0;
  for (const std::string& program : programs) {
    INFO(program);
    const std::string dir = e2e::FreshDirectory("streaming-races");
    const std::string trace = dir + "/trace.pecan";
    const e2e::PecanRun record =
        e2e::RunPecan({"record", "-o", trace, "--", program}, dir + "/record.log", 120);
    INFO(record.output);
    REQUIRE(e2e::ExitStatus(record.result) == 0);
    for (const std::string format : {"json", "text"}) {
      const std::string streamed = dir + "/streamed." + format;
      const std::string indexed = dir + "/indexed." + format;
      const e2e::PecanRun a = e2e::RunPecan(
          {"analyze", "--patterns", "race", "--format", format, "-o", streamed, trace},
          dir + "/streamed.log", 120);
      const e2e::PecanRun b = e2e::RunPecan({"analyze", "--patterns", "race", "--format", format,
                                             "--ptg-dot", dir + "/ptg.dot", "-o", indexed, trace},
                                            dir + "/indexed.log", 120);
      INFO(a.output << "\n" << b.output);
      REQUIRE(e2e::ExitStatus(a.result) == 0);
      REQUIRE(e2e::ExitStatus(b.result) == 0);
      if (std::string(format) == "json") {
        const nlohmann::json got = WithoutTimes(e2e::ReadJson(streamed));
        const nlohmann::json expected = WithoutTimes(e2e::ReadJson(indexed));
        CHECK(got == expected);
        findings += expected["findings"].size();
      } else {
        CHECK(e2e::ReadText(streamed) == e2e::ReadText(indexed));
      }
    }
  }
  CHECK(findings >= 5);
}
