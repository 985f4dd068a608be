// The symbolizer on a real recording: the write to `shared_counter` in counter.c must come back
// as counter.c, the marked line, function AddOne, and its address as the global's name — for a
// gcc build and for a clang build (DWARF 5 without .debug_aranges).
#include <catch2/catch.hpp>
#include <string>

#include "analyzer/symbolizer.h"
#include "tooling_support.h"
#include "trace_format/trace_reader.h"

using namespace tooling_test;

TEST_CASE("symbolizer resolves a recorded write to its source line, function and variable",
          "[symbolizer]") {
  const std::string compiler = GENERATE("gcc", "clang");
  INFO("compiler " << compiler);
  TempDir scratch("recorded-symbols");
  std::string trace_path = scratch / "t.pecan";
  CommandResult run = RunCommand("PECAN_MODE=record PECAN_TRACE=" + Quote(trace_path) + " " +
                                     Quote(InstrumentedCounter(compiler)),
                                 scratch);
  REQUIRE(run.exit_code == 0);
  pecan::Trace trace = pecan::ReadTrace(trace_path);
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
