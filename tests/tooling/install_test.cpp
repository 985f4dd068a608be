// The installed package end to end: `cmake --install` into a temporary prefix, then a consumer
// project with find_package(pecan) + pecan_instrument() is built (gcc for C, clang for C++), run
// under the installed `pecan record`, and installed; its own tool reads the trace through the
// installed pecan::trace_format library; the installed wrappers still work after the prefix moves.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "analyzer/symbolizer.h"
#include "tooling_support.h"
#include "trace_format/trace_reader.h"

using namespace tooling_test;

namespace {

// Writes to the consumer's `tally_total` (in its instrumented static library) and its regions.
void CheckConsumerTrace(const std::string& trace_path) {
  pecan::Trace trace = pecan::ReadTrace(trace_path);
  pecan::Symbolizer symbolizer(trace);
  size_t tally_writes = 0, regions = 0;
  for (pecan::EventIndex i = 0; i < trace.size_events(); ++i) {
    regions += trace.kind[i] == pecan::EventKind::kRegionBegin;
    tally_writes += trace.kind[i] == pecan::EventKind::kWrite &&
                    symbolizer.NameOfAddress(trace.addr[i]) == "tally_total";
  }
  CHECK(tally_writes == 1000);
  CHECK(regions == 1000);
}

}  // namespace

TEST_CASE("an installed pecan serves find_package, pecan_instrument, record and the wrappers",
          "[install]") {
  TempDir scratch("install");
  std::string prefix = scratch / "prefix";
  CommandResult install = RunCommand(
      Quote(kCMake) + " --install " + Quote(kBuildDir) + " --prefix " + Quote(prefix), scratch);
  INFO(install.out << install.err);
  REQUIRE(install.exit_code == 0);
  for (const char* file :
       {"bin/pecan", "bin/pecan-cc", "bin/pecan-c++", "lib/libpecan_rt.so",
        "lib/cmake/pecan/pecanConfig.cmake", "lib/cmake/pecan/pecanConfigVersion.cmake",
        "lib/cmake/pecan/PecanInstrument.cmake", "include/pecan/annotations.h",
        "include/pecan/trace_format/trace.h", "include/pecan/trace_format/trace_reader.h",
        "include/pecan/trace_format/version.h", "include/pecan/proto/trace.pb.h",
        "lib/libpecan_trace_format.a", "lib/libpecan_proto.a", "lib/cmake/pecan/pecanTargets.cmake",
        "share/doc/pecan/PATTERNS.md", "share/doc/pecan/FORMAT.md", "share/doc/pecan/STD_FORMAT.md",
        "share/doc/pecan/runtime-env.md"}) {
    INFO(file);
    CHECK(std::filesystem::exists(std::filesystem::path(prefix) / file));
  }
  std::string installed_pecan = Quote(prefix + "/bin/pecan");

  // C with gcc and C++ with clang in one project: each gets its own flags (gcc would reject
  // clang's -mllvm option, so a successful build shows the flags are scoped per compiler).
  std::string build = scratch / "consumer-build";
  CommandResult configured = RunCommand(
      Quote(kCMake) + " -S " + Quote(kConsumerDir) + " -B " + Quote(build) +
          " -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=clang++ "
          "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON" +
          " -DCMAKE_PREFIX_PATH=" + Quote(prefix) + " -DCMAKE_BUILD_TYPE=RelWithDebInfo" +
          " -DCMAKE_INSTALL_PREFIX=" + Quote(scratch / "consumer-prefix") + " && " + Quote(kCMake) +
          " --build " + Quote(build) + " && " + Quote(kCMake) + " --install " + Quote(build),
      scratch);
  INFO(configured.out << configured.err);
  REQUIRE(configured.exit_code == 0);
  std::string compile_commands = ReadFile(build + "/compile_commands.json");
  CHECK_THAT(compile_commands, Catch::Contains("-fsanitize=thread") &&
                                   Catch::Contains("-mllvm -tsan-compound-read-before-write=1"));

  std::string trace = scratch / "consumer.pecan";
  CommandResult recorded = RunCommand(
      installed_pecan + " record -o " + Quote(trace) + " -- " + Quote(build + "/app"), scratch);
  INFO(recorded.err);
  CHECK(recorded.exit_code == 0);
  CHECK(recorded.out == "tally=1000\n");
  CheckConsumerTrace(trace);

  // The consumer's trace tool, linked against the installed pecan::trace_format, reads the same
  // trace as this test's own reader does.
  {
    const pecan::Trace expected = pecan::ReadTrace(trace);
    size_t writes = 0;
    for (pecan::EventIndex i = 0; i < expected.size_events(); ++i)
      writes += expected.kind[i] == pecan::EventKind::kWrite;
    CommandResult read = RunCommand(Quote(build + "/read_trace") + " " + Quote(trace), scratch);
    INFO(read.err);
    CHECK(read.exit_code == 0);
    CHECK(read.out == "events=" + std::to_string(expected.size_events()) +
                          " threads=" + std::to_string(expected.threads.size()) +
                          " writes=" + std::to_string(writes) + " complete=1\n");
    CHECK(writes >= 1000);
    // A foreign file: the library's error names the file and the byte offset.
    std::string foreign = scratch / "foreign.pecan";
    std::ofstream(foreign) << "not a trace\n";
    CommandResult refused =
        RunCommand(Quote(build + "/read_trace") + " " + Quote(foreign), scratch);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.err, Catch::Contains("foreign.pecan") && Catch::Contains("byte 0"));
  }

  // The consumer's own install keeps finding the runtime (pecan_instrument sets INSTALL_RPATH).
  CommandResult installed_app = RunCommand(installed_pecan + " record -q -o " + Quote(trace) +
                                               " -- " + Quote(scratch / "consumer-prefix/bin/app"),
                                           scratch);
  INFO(installed_app.err);
  CHECK(installed_app.exit_code == 0);
  CHECK(installed_app.out == "tally=1000\n");

  // The wrappers find the runtime relative to themselves, so a moved prefix keeps working.
  std::string moved = scratch / "moved-prefix";
  std::filesystem::rename(prefix, moved);
  CommandResult built =
      RunCommand("PECAN_CC=gcc " + Quote(moved + "/bin/pecan-cc") + " -pthread " +
                     Quote(kProgramsDir + "/counter.c") + " -o counter && readelf -d counter",
                 scratch, "", scratch.path());
  INFO(built.err);
  REQUIRE(built.exit_code == 0);
  CHECK_THAT(built.out, Catch::Contains(std::filesystem::canonical(moved).string() + "/lib"));
  CommandResult run = RunCommand(Quote(moved + "/bin/pecan") + " record -o c.pecan -- ./counter",
                                 scratch, "", scratch.path());
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out == "counter=2000\n");
}
