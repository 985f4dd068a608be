// Records a test program that must run cleanly: it exits with status 0, its trace reads back,
// every property of trace_checks.h holds and the runtime dropped nothing. Catch2 assertions:
// call it inside a test case.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {

struct CleanRecording {
  ProgramResult out;
  Trace trace;
};

// Program `name` built by `compiler`, recorded into <scratch>/<name>_<compiler>.pecan.
inline CleanRecording RecordCleanly(const std::string& name, const std::string& compiler,
                                    const std::vector<std::string>& args = {}) {
  RecordedRun run = RunRecorded(Program(name, compiler), args, name + "_" + compiler);
  REQUIRE(run.result.exited);
  REQUIRE(run.result.exit_status == 0);
  Trace trace = ReadTrace(run.trace_path);
  INFO(Describe(CheckAll(trace)));
  CHECK(CheckAll(trace).empty());
  CHECK(trace.meta.dropped_events == 0);
  return CleanRecording{std::move(run.result), std::move(trace)};
}

}  // namespace pecan::rt_test
