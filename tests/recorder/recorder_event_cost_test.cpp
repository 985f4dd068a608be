// The recorder's per-event cost, measured (a benchmark, not a correctness test: hidden, run
// with `recorder_e2e_test "[.benchmark]"`). Compares an uninstrumented build, the instrumented
// build with the runtime off, and recording, for gcc and clang.
#include <cstdio>
#include <filesystem>
#include <sstream>

#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {
namespace {

double Figure(const ProgramResult& out, const std::string& name) {
  std::istringstream in(out.out);
  for (std::string key; in >> key;) {
    double value = 0;
    in >> value;
    if (key == name) return value;
  }
  return -1;
}

}  // namespace

TEST_CASE("per-event cost of recording", "[.benchmark]") {
  const std::vector<std::string> args = {"400", "300000"};
  std::printf("%-22s %14s %14s %14s\n", "build / mode", "ns/access 1T", "ns/access 4T",
              "ns/lock+atomic");
  auto row = [&](const std::string& label, const ProgramResult& out) {
    REQUIRE(out.exit_status == 0);
    std::printf("%-22s %14.2f %14.2f %14.2f\n", label.c_str(), Figure(out, "access_ns_1thread"),
                Figure(out, "access_ns_4threads"), Figure(out, "sync_iteration_ns"));
  };
  row("native", RunProgram(Program("event_cost", "native"), args, {}));
  for (std::string compiler : {"gcc", "clang"}) {
    row(compiler + " off", RunProgram(Program("event_cost", compiler), args, {{"PECAN_MODE", ""}}));
    RecordedRun run = RunRecorded(Program("event_cost", compiler), args, "event_cost_" + compiler);
    row(compiler + " record", run.result);
    const size_t events = ReadTrace(run.trace_path).size_events();
    const double bytes = double(std::filesystem::file_size(run.trace_path));
    std::printf("%-22s %zu events, %.3f bytes/event on disk\n", "", events, bytes / double(events));
  }
}

}  // namespace pecan::rt_test
