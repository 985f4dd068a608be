// `pecan analyze` as a user runs it: the built binary on STD and .pecan files, each format,
// -o, the summary line, and errors (exit 2, one line).
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report_fixture.h"
#include "tests/support/cli_workspace.h"
#include "trace_format/trace_writer.h"

using namespace pecan;
using namespace pecan::test;
using nlohmann::json;

namespace {

using RunResult = test::CliRun;
using test::ReadWholeFile;

// A scratch folder; `pecan` runs in it (tests/support/cli_workspace.h).
struct Workspace : test::CliWorkspace {
  Workspace() : CliWorkspace("analyze-test", PECAN_BINARY) {}
};

size_t CountLines(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n');
}

}  // namespace

TEST_CASE("pecan analyze on an STD trace prints warnings and the summary, exit 0") {
  Workspace ws;
  std::string trace = ws.Write("fixture.std", kFixtureStd);
  RunResult run = ws.Pecan("analyze " + trace);
  INFO(run.out << run.err);
  CHECK(run.status == 0);
  CHECK(run.out.find("loc 4: warning: data race on 'counter'") != std::string::npos);
  CHECK(run.out.find(": note: T1 writes 'counter' here (event 5), holding no lock") !=
        std::string::npos);
  // The summary is the last line and agrees with the warnings above it.
  std::string last = run.out.substr(run.out.rfind('\n', run.out.size() - 2) + 1);
  CHECK(last.find(" findings: ") != std::string::npos);
  size_t warnings = 0;
  for (size_t p = run.out.find(": warning: "); p != std::string::npos;
       p = run.out.find(": warning: ", p + 1))
    ++warnings;
  CHECK(last.rfind(std::to_string(warnings) + " findings: ", 0) == 0);
  CHECK(run.err.empty());
}

TEST_CASE("pecan analyze --format json and sarif keep stdout pure, summary on stderr") {
  Workspace ws;
  std::string trace = ws.Write("fixture.std", kFixtureStd);
  RunResult json_run = ws.Pecan("analyze --format json " + trace);
  CHECK(json_run.status == 0);
  json report = json::parse(json_run.out);
  CHECK(report["trace"] == trace);
  CHECK(report["trace_hash"].get<std::string>().size() == 16);
  CHECK(report["findings"].size() >= 2);
  CHECK(json_run.err.rfind("pecan: ", 0) == 0);
  CHECK(CountLines(json_run.err) == 1);

  RunResult sarif_run = ws.Pecan("analyze -f sarif " + trace);
  CHECK(sarif_run.status == 0);
  json sarif = json::parse(sarif_run.out);
  CHECK(sarif["version"] == "2.1.0");
  CHECK(sarif["runs"][0]["results"].size() == report["findings"].size());
}

TEST_CASE("pecan analyze -o FILE writes the report there; --patterns selects families") {
  Workspace ws;
  std::string trace = ws.Write("fixture.std", kFixtureStd);
  std::string output = ws.Path("report.json");
  RunResult run = ws.Pecan("analyze " + trace + " --format json -o " + output);
  CHECK(run.status == 0);
  CHECK(run.out.empty());
  CHECK(run.err.find("report written to " + output) != std::string::npos);
  json all = json::parse(ReadWholeFile(output));

  run = ws.Pecan("analyze " + trace + " --patterns race --format json -o " + output);
  CHECK(run.status == 0);
  json races = json::parse(ReadWholeFile(output));
  CHECK(races["findings"].size() < all["findings"].size());
  for (const json& finding : races["findings"]) CHECK(finding["pattern"] == "race");
}

TEST_CASE("pecan analyze reads .pecan traces (by magic, whatever the name)") {
  Workspace ws;
  Trace trace = FixtureTrace();
  std::string path = ws.Path("fixture.trace");
  WriteTrace(path, trace);
  RunResult run = ws.Pecan("analyze " + path);
  INFO(run.out << run.err);
  CHECK(run.status == 0);
  CHECK(run.out.find("warning: data race on 'counter'") != std::string::npos);
}

TEST_CASE("pecan analyze: bad input is exit 2 with a one-line message") {
  Workspace ws;
  RunResult missing = ws.Pecan("analyze " + ws.Path("nothere.std"));
  CHECK(missing.status == 2);
  CHECK(missing.err ==
        "pecan: error: " + ws.Path("nothere.std") + ": cannot open: No such file or directory\n");

  std::string bad_std = ws.Write("bad.std", "T0|zap(x)|1\n");
  RunResult malformed = ws.Pecan("analyze " + bad_std);
  CHECK(malformed.status == 2);
  CHECK(malformed.err.rfind("pecan: error: " + bad_std + ":1:", 0) == 0);
  CHECK(CountLines(malformed.err) == 1);

  std::string fake = ws.Write("fake.pecan", "not a trace at all");
  RunResult corrupt = ws.Pecan("analyze " + fake);
  CHECK(corrupt.status == 2);
  CHECK(corrupt.err.rfind("pecan: error: " + fake, 0) == 0);
  CHECK(CountLines(corrupt.err) == 1);

  std::string trace = ws.Write("fixture.std", kFixtureStd);
  RunResult bad_patterns = ws.Pecan("analyze " + trace + " --patterns nosuch");
  CHECK(bad_patterns.status == 2);
  CHECK(bad_patterns.err.find("nosuch") != std::string::npos);

  RunResult bad_output = ws.Pecan("analyze " + trace + " -o " + ws.Path("no/such/dir/r.txt"));
  CHECK(bad_output.status == 2);
  CHECK(bad_output.err.find("cannot write") != std::string::npos);

  RunResult bad_format = ws.Pecan("analyze " + trace + " --format html");
  CHECK(bad_format.status == 2);
}

TEST_CASE("pecan analyze --help explains the command") {
  Workspace ws;
  RunResult help = ws.Pecan("analyze --help");
  CHECK(help.status == 0);
  for (const char* words :
       {"--patterns", "--regions", "--format", "--output", "Examples:", "Exit status"})
    CHECK(help.out.find(words) != std::string::npos);
}
