// The JSON report's fields, and reading it back with LoadJsonReport / ReadJsonReport.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "analyzer/report_json.h"
#include "report_fixture.h"
#include "tests/support/random_trace_generator.h"
#include "trace_format/error.h"

using namespace pecan;
using namespace pecan::test;
using nlohmann::json;

namespace {

// A scratch file removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() /
               ("pecan-report-test-" + std::to_string(getpid()) + "-" + name))
                  .string()) {}
  ~TempFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }
  void Write(const std::string& text) const { std::ofstream(path_, std::ios::binary) << text; }

 private:
  std::string path_;
};

}  // namespace

TEST_CASE("json report: top level, findings and stats") {
  json report = json::parse(JsonReport(FixtureTrace(), FixtureResult()));
  CHECK(report["format"]["major"] == kJsonReportMajor);
  CHECK(report["trace"] == "fixture.std");
  CHECK(report["trace_hash"] == "00112233aabbccdd");
  CHECK(report["program"].is_string());
  REQUIRE(report["findings"].size() == 2);

  const json& race = report["findings"][0];
  CHECK(race["id"] == "race-00000001");
  CHECK(race["pattern"] == "race");
  CHECK(race["variant"] == "W-W");
  CHECK(race["observed"] == true);
  CHECK(race["adjacent"] == true);
  CHECK(race["reason"] == "no common lock and no happens-before order between the accesses");
  REQUIRE(race["events"].size() == 2);

  const json& first = race["events"][0];
  CHECK(first["index"] == 3);
  CHECK(first["thread"] == "T0");
  CHECK(first["kind"] == "write");
  CHECK(first["address"] == "0x100000000");  // STD variables start there (STD_FORMAT.md)
  CHECK(first["size"] == 8);
  CHECK(first["variable"] == "counter");
  CHECK(first["locks_held"] == json::array({"m"}));
  CHECK(first["site"]["id"] == 4);  // the STD location, not the site table index
  CHECK(first["site"]["text"] == "loc 4");
  CHECK(first["site"]["function"] == "");
  CHECK(first["site"]["file"] == "");
  CHECK(first["site"]["line"] == 0);
  const json& second = race["events"][1];
  CHECK(second["thread"] == "T1");
  CHECK(second["locks_held"].empty());
  CHECK(second["site"]["id"] == 6);

  const json& atomicity = report["findings"][1];
  CHECK(atomicity["observed"] == false);
  CHECK(atomicity["adjacent"] == false);
  CHECK(atomicity["witnesses"] == 3);
  REQUIRE(atomicity["overtaken"].size() == 1);
  CHECK(atomicity["overtaken"][0]["index"] == 3);

  const json& stats = report["stats"];
  CHECK(stats["events"] == 7);
  CHECK(stats["shared_locations"] == 1);
  CHECK(stats["candidates"] == 5);
  CHECK(stats["seconds_total"] == 0.25);
  CHECK(stats["seconds_by_family"]["atomicity"] == 0.15);
  CHECK(stats["findings"] == 2);
  CHECK(stats["races"] == 1);
  CHECK(stats["atomicity"] == 1);
  CHECK(stats["observed"] == 1);
  CHECK(stats["predicted"] == 1);
}

TEST_CASE("json report round trip: ReadJsonReport gives the findings back") {
  AnalysisResult result = FixtureResult();
  TempFile file("roundtrip.json");
  file.Write(JsonReport(FixtureTrace(), result));
  LoadedReport loaded = LoadJsonReport(file.path());
  CHECK(loaded.trace_path == "fixture.std");
  CHECK(loaded.trace_hash == "00112233aabbccdd");
  std::vector<Finding> findings = ReadJsonReport(file.path());
  REQUIRE(findings.size() == result.findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& want = result.findings[i];
    const Finding& got = findings[i];
    CHECK(got.id == want.id);
    CHECK(got.pattern == want.pattern);
    CHECK(got.variant == want.variant);
    CHECK(got.observed == want.observed);
    CHECK(got.adjacent == want.adjacent);
    CHECK(got.events == want.events);
    CHECK(got.overtaken == want.overtaken);
    CHECK(got.reason == want.reason);
    CHECK(got.witnesses == want.witnesses);
  }
}

TEST_CASE("json report round trip of the analyzer's findings on random traces") {
  RandomTraceGenerator generator;
  size_t total = 0;
  TempFile file("random.json");
  for (uint64_t seed = 0; seed < 40; ++seed) {
    Trace trace = generator.Generate(seed);
    AnalysisResult result = Analyze(trace, AnalysisOptions{});
    file.Write(JsonReport(trace, result));
    std::vector<Finding> findings = ReadJsonReport(file.path());
    REQUIRE(findings.size() == result.findings.size());
    for (size_t i = 0; i < findings.size(); ++i) {
      CHECK(findings[i].id == result.findings[i].id);
      CHECK(findings[i].events == result.findings[i].events);
      CHECK(findings[i].overtaken == result.findings[i].overtaken);
      CHECK(findings[i].adjacent == result.findings[i].adjacent);
      CHECK(findings[i].reason == result.findings[i].reason);
    }
    total += findings.size();
  }
  CHECK(total > 40);
}

TEST_CASE("ReadJsonReport: clear errors naming the file") {
  TempFile file("bad.json");
  CHECK_THROWS_WITH(ReadJsonReport(file.path() + ".missing"),
                    Catch::Contains(".missing: cannot open the report"));

  file.Write("{\"findings\": [");
  CHECK_THROWS_WITH(ReadJsonReport(file.path()),
                    Catch::Contains(file.path() + ": not valid JSON (byte"));

  file.Write("[1, 2]");
  CHECK_THROWS_WITH(ReadJsonReport(file.path()), Catch::Contains("not a pecan JSON report"));

  file.Write("{\"format\": {\"major\": 2, \"minor\": 0}, \"findings\": []}");
  CHECK_THROWS_WITH(ReadJsonReport(file.path()), Catch::Contains("written by a newer pecan"));

  file.Write("{\"findings\": [{\"id\": \"x\", \"pattern\": \"race\"}]}");
  CHECK_THROWS_WITH(ReadJsonReport(file.path()),
                    Catch::Contains("findings[0]: missing \"events\""));

  file.Write(
      "{\"findings\": [{\"id\": \"x\", \"pattern\": \"race\", \"events\": [{\"index\": "
      "-1}]}]}");
  CHECK_THROWS_WITH(ReadJsonReport(file.path()),
                    Catch::Contains("findings[0].events[0].index: expected a non-negative"));

  // A minor version newer than ours, with fields we do not know, still reads.
  file.Write(
      "{\"format\": {\"major\": 1, \"minor\": 9}, \"future\": true, \"findings\": [{\"id\": "
      "\"x\", \"pattern\": \"race\", \"events\": [{\"index\": 1}, {\"index\": 4}], "
      "\"new_field\": 3}]}");
  std::vector<Finding> findings = ReadJsonReport(file.path());
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].events == std::vector<EventIndex>{1, 4});
  CHECK(findings[0].witnesses == 1);
  // Without "adjacent" (a 1.0 report) a two-event race is adjacent, as the built-in one is.
  CHECK(findings[0].adjacent);

  file.Write(
      "{\"findings\": [{\"id\": \"u\", \"pattern\": \"mine\", \"adjacent\": true, "
      "\"events\": [{\"index\": 1}, {\"index\": 4}]}, {\"id\": \"v\", \"pattern\": "
      "\"mine\", \"events\": [{\"index\": 1}, {\"index\": 4}]}]}");
  findings = ReadJsonReport(file.path());
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].adjacent);
  CHECK_FALSE(findings[1].adjacent);
  file.Write(
      "{\"findings\": [{\"id\": \"u\", \"pattern\": \"mine\", \"adjacent\": 1, "
      "\"events\": [{\"index\": 1}]}]}");
  CHECK_THROWS_WITH(ReadJsonReport(file.path()),
                    Catch::Contains("findings[0].adjacent: expected true or false"));
}
