// The process around the recording: off mode records nothing, fork() follows PECAN_FORK
// (stop: the child records nothing; follow: the child writes <trace>.child-<pid>).
#include <filesystem>

#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {
namespace {

size_t WritesIn(const Trace& trace, const ProgramResult& out, const std::string& name) {
  const uint64_t begin = out.Address(name);
  return CountEventsInRange(trace, EventKind::kWrite, begin, begin + out.Size(name));
}

std::vector<std::string> FilesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("without PECAN_MODE the runtime records nothing and the program runs normally",
          "[recorder]") {
  const std::string dir = ScratchDir("off_mode");
  ProgramResult off = RunProgram(Program("pthread_sync", "gcc"), {}, {{"PECAN_MODE", ""}}, dir);
  CHECK(off.exited);
  CHECK(off.exit_status == 0);
  CHECK(FilesIn(dir).empty());

  ProgramResult explicit_off =
      RunProgram(Program("cxx_sync", "clang"), {}, {{"PECAN_MODE", "off"}}, dir);
  CHECK(explicit_off.exit_status == 0);
  CHECK(FilesIn(dir).empty());
}

TEST_CASE("the default trace name is pecan-<program>-<pid>.pecan in the working directory",
          "[recorder]") {
  const std::string dir = ScratchDir("default_name");
  ProgramResult out = RunProgram(Program("pthread_sync", "gcc"), {},
                                 {{"PECAN_MODE", "record"}, {"PECAN_TRACE", ""}}, dir);
  REQUIRE(out.exit_status == 0);
  auto files = FilesIn(dir);
  REQUIRE(files.size() == 1);
  CHECK(files[0].rfind("pecan-pthread_sync.gcc-", 0) == 0);
  CHECK(ReadTrace(dir + "/" + files[0]).threads.size() == 5);
}

TEST_CASE("PECAN_FORK=stop: the forked child records nothing, the parent everything",
          "[recorder]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      RecordedRun run =
          RunRecorded(Program("fork_child", compiler), {"30"}, "fork_stop_" + compiler);
      REQUIRE(run.result.exited);
      REQUIRE(run.result.exit_status == 0);
      std::string dir = std::filesystem::path(run.trace_path).parent_path();
      CHECK(FilesIn(dir) == std::vector<std::string>{"trace.pecan"});
      Trace trace = ReadTrace(run.trace_path);
      CHECK(CheckAll(trace).empty());
      CHECK(WritesIn(trace, run.result, "parent_markers") == 31);
      CHECK(WritesIn(trace, run.result, "child_markers") == 0);
      CHECK(trace.meta.settings.fork_policy == "stop");
    }
  }
}

TEST_CASE("PECAN_FORK=follow: the forked child records into its own trace", "[recorder]") {
  for (std::string compiler : {"gcc", "clang"}) {
    SECTION(compiler) {
      RecordedRun run = RunRecorded(Program("fork_child", compiler), {"30"},
                                    "fork_follow_" + compiler, {{"PECAN_FORK", "follow"}});
      REQUIRE(run.result.exited);
      REQUIRE(run.result.exit_status == 0);
      std::string child_trace;
      std::string dir = std::filesystem::path(run.trace_path).parent_path();
      for (const std::string& name : FilesIn(dir)) {
        if (name.rfind("trace.pecan.child-", 0) == 0) child_trace = dir + "/" + name;
      }
      REQUIRE(!child_trace.empty());

      Trace parent = ReadTrace(run.trace_path);
      CHECK(CheckAll(parent).empty());
      CHECK(WritesIn(parent, run.result, "parent_markers") == 31);
      CHECK(WritesIn(parent, run.result, "child_markers") == 0);

      Trace child = ReadTrace(child_trace);
      INFO(Describe(CheckAll(child)));
      CHECK(CheckAll(child).empty());
      CHECK(child.threads.size() == 2);  // the forking thread and the thread it started
      CHECK(WritesIn(child, run.result, "child_markers") == 21);
      CHECK(WritesIn(child, run.result, "parent_markers") == 0);
      CHECK(child.meta.exit.known);
      CHECK(child.meta.exit.exit_status == 0);
    }
  }
}

}  // namespace pecan::rt_test
