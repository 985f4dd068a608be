// The symbolizer on a real recording: the write to `shared_counter` in counter.c must come back
// as counter.c, the marked line, function AddOne, and its address as the global's name — for a
// gcc build and for a clang build (DWARF 5 without .debug_aranges).
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "analyzer/symbolizer.h"
#include "tooling_support.h"
#include "trace_format/trace_reader.h"

using namespace tooling_test;

namespace {

// The counter program built by `compiler`, run with PECAN_MODE=record (no pecan CLI): its trace.
pecan::Trace RecordCounterDirectly(const std::string& compiler, const TempDir& scratch) {
  const std::string trace_path = scratch / "t.pecan";
  CommandResult run = RunCommand("PECAN_MODE=record PECAN_TRACE=" + Quote(trace_path) + " " +
                                     Quote(InstrumentedCounter(compiler)),
                                 scratch);
  REQUIRE(run.exit_code == 0);
  return pecan::ReadTrace(trace_path);
}

}  // namespace

TEST_CASE("symbolizer resolves a recorded write to its source line, function and variable",
          "[symbolizer]") {
  const std::string compiler = GENERATE("gcc", "clang");
  INFO("compiler " << compiler);
  TempDir scratch("recorded-symbols");
  pecan::Trace trace = RecordCounterDirectly(compiler, scratch);
  pecan::Symbolizer symbolizer(trace);

  std::string source = kProgramsDir + "/counter.c";
  unsigned marked_line = LineOf(source, "SITE: counter-write");
  REQUIRE(marked_line > 0);
  size_t matching_writes = 0;
  for (pecan::EventIndex i = 0; i < trace.size_events(); ++i) {
    if (trace.kind[i] != pecan::EventKind::kWrite ||
        symbolizer.NameOfAddress(trace.addr[i]) != "shared_counter")
      continue;
    pecan::SourceLocation location = symbolizer.Resolve(trace.site[i]);
    INFO(symbolizer.Describe(trace.site[i]));
    CHECK(std::filesystem::path(location.file).filename() == "counter.c");
    CHECK(location.line == marked_line);
    CHECK(location.function == "AddOne");
    ++matching_writes;
  }
  CHECK(matching_writes == 2000);
}

TEST_CASE("a thread's begin and end are named by its start routine, not the code before it",
          "[symbolizer]") {
  const std::string compiler = GENERATE("gcc", "clang");
  INFO("compiler " << compiler);
  TempDir scratch("thread-entry-symbols");
  pecan::Trace trace = RecordCounterDirectly(compiler, scratch);
  pecan::Symbolizer symbolizer(trace);
  size_t named = 0;
  for (pecan::EventIndex i = 0; i < trace.size_events(); ++i) {
    const pecan::EventKind kind = trace.kind[i];
    if (trace.thread[i] == 0 ||
        (kind != pecan::EventKind::kThreadBegin && kind != pecan::EventKind::kThreadEnd))
      continue;
    INFO(symbolizer.Describe(trace.site[i]));
    CHECK(symbolizer.Resolve(trace.site[i]).function == "Worker");
    ++named;
  }
  CHECK(named == 4);  // two workers, each begins and ends
}

TEST_CASE("pecan dump shows a recorded write's source line, function and variable",
          "[symbolizer][dump]") {
  TempDir scratch("dump-symbols");
  std::string trace_path = scratch / "t.pecan";
  CommandResult run = RunCommand(Quote(kPecan) + " record -o " + Quote(trace_path) + " -- " +
                                     Quote(InstrumentedCounter("gcc")),
                                 scratch);
  REQUIRE(run.exit_code == 0);
  const unsigned marked_line = LineOf(kProgramsDir + "/counter.c", "SITE: counter-write");
  REQUIRE(marked_line > 0);
  const std::string where = "counter.c:" + std::to_string(marked_line) + " (AddOne)";

  CommandResult text = RunCommand(Quote(kPecan) + " dump " + Quote(trace_path), scratch);
  REQUIRE(text.exit_code == 0);
  size_t symbolized_writes = 0;
  std::istringstream lines(text.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" write ") != std::string::npos &&
        line.find("(shared_counter)") != std::string::npos && line.find(where) != std::string::npos)
      ++symbolized_writes;
  }
  CHECK(symbolized_writes == 2000);

  CommandResult json =
      RunCommand(Quote(kPecan) + " dump --format json " + Quote(trace_path), scratch);
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.out,
             Catch::Contains("\"name\":\"shared_counter\"") && Catch::Contains(where + "\""));
}
