// pecan-cc / pecan-c++ end to end: C and C++ programs built with gcc and with clang, in one
// step and in separate compile and link steps, must link pecan's runtime (not TSan's) and record.
#include <catch2/catch.hpp>
#include <string>

#include "analyzer/symbolizer.h"
#include "tooling_support.h"
#include "trace_format/trace_reader.h"

using namespace tooling_test;

namespace {

struct WrapperCase {
  std::string wrapper;       // pecan-cc or pecan-c++
  std::string compiler_var;  // PECAN_CC or PECAN_CXX
  std::string compiler;      // gcc, clang, g++, clang++
  std::string source;        // in tests/tooling/programs
  bool separate_link;        // -c then link, or one step
};

std::string Describe(const WrapperCase& c) {
  return c.wrapper + " with " + c.compiler + " on " + c.source +
         (c.separate_link ? ", -c then link" : ", one step");
}

// Builds the case's program in `scratch` and returns the program's path.
std::string Build(const WrapperCase& c, const TempDir& scratch) {
  std::string wrapper =
      c.compiler_var + "=" + c.compiler + " " + Quote(kWrappersDir + "/" + c.wrapper);
  std::string source = Quote(kProgramsDir + "/" + c.source);
  std::string program = scratch / "program";
  std::string command;
  if (c.separate_link) {
    std::string object = Quote(scratch / "program.o");
    command = wrapper + " -g -O1 -c " + source + " -o " + object + " && " + wrapper + " -pthread " +
              object + " -o " + Quote(program);
  } else {
    command = wrapper + " -g -O1 -pthread " + source + " -o " + Quote(program);
  }
  CommandResult built = RunCommand(command, scratch);
  INFO(command << "\n" << built.err);
  REQUIRE(built.exit_code == 0);
  return program;
}

}  // namespace

TEST_CASE("compiler wrappers build recordable programs with gcc and clang, C and C++",
          "[wrappers]") {
  auto separate_link = GENERATE(false, true);
  auto c = GENERATE_COPY(values<WrapperCase>({
      {"pecan-cc", "PECAN_CC", "gcc", "counter.c", separate_link},
      {"pecan-cc", "PECAN_CC", "clang", "counter.c", separate_link},
      {"pecan-c++", "PECAN_CXX", "g++", "greeter.cpp", separate_link},
      {"pecan-c++", "PECAN_CXX", "clang++", "greeter.cpp", separate_link},
  }));
  INFO(Describe(c));
  TempDir scratch("wrappers");
  std::string program = Build(c, scratch);

  CommandResult dynamic = RunCommand("readelf -d " + Quote(program), scratch);
  REQUIRE(dynamic.exit_code == 0);
  CHECK_THAT(dynamic.out, Catch::Contains("[libpecan_rt.so]"));
  CHECK_THAT(dynamic.out, !Catch::Contains("libtsan"));
  CHECK_THAT(dynamic.out, Catch::Contains("RUNPATH") || Catch::Contains("RPATH"));

  std::string trace_path = scratch / "run.pecan";
  CommandResult run = RunCommand(
      "PECAN_MODE=record PECAN_TRACE=" + Quote(trace_path) + " " + Quote(program), scratch);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  pecan::Trace trace = pecan::ReadTrace(trace_path);
  CHECK(trace.threads.size() >= 3);

  // Writes made by the program's own (instrumented) code, i.e. sited in the program's module.
  uint32_t program_module = pecan::kNoModule;
  for (const auto& module : trace.modules) {
    if (std::filesystem::equivalent(module.path, program)) program_module = module.id;
  }
  REQUIRE(program_module != pecan::kNoModule);
  pecan::Symbolizer symbolizer(trace);
  size_t own_writes = 0, counter_reads = 0, counter_writes = 0;
  for (pecan::EventIndex i = 0; i < trace.size_events(); ++i) {
    pecan::Event event = trace.event(i);
    if (!pecan::IsPlainAccess(event.kind)) continue;
    own_writes +=
        event.kind == pecan::EventKind::kWrite && trace.sites[event.site].module == program_module;
    if (c.source == "counter.c" && symbolizer.NameOfAddress(event.addr) == "shared_counter") {
      (event.kind == pecan::EventKind::kRead ? counter_reads : counter_writes) += 1;
    }
  }
  CHECK(own_writes > 0);
  if (c.source == "counter.c") {
    CHECK(run.out == "counter=2000\n");
    CHECK(counter_writes == 2000);
    // clang reports the read of `x = x + 1` only when the wrapper asks for it.
    CHECK(counter_reads == 2000 + 1);  // main reads it once more, to print it
  } else {
    CHECK(run.out == "greetings=3\n");
    size_t regions = 0;
    for (auto kind : trace.kind) regions += kind == pecan::EventKind::kRegionBegin;
    CHECK(regions == 3);  // <pecan/annotations.h> was found and enabled
  }
}

TEST_CASE("compiler wrappers pass queries through and refuse what cannot work", "[wrappers]") {
  TempDir scratch("wrapper-queries");
  std::string pecan_cc = "PECAN_CC=gcc " + Quote(kWrappersDir + "/pecan-cc");

  CommandResult version = RunCommand(pecan_cc + " --version", scratch);
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.out, Catch::Contains("gcc") || Catch::Contains("GCC"));

  CommandResult help = RunCommand(pecan_cc + " --pecan-help", scratch);
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("PECAN_CC"));

  CommandResult static_link =
      RunCommand(pecan_cc + " -static " + Quote(kProgramsDir + "/counter.c") + " -o " +
                     Quote(scratch / "program"),
                 scratch);
  CHECK(static_link.exit_code == 2);
  CHECK_THAT(static_link.err, Catch::Contains("-static is not supported"));

  CommandResult loop = RunCommand(
      "PECAN_CC=" + Quote(kWrappersDir + "/pecan-cc") + " " + Quote(kWrappersDir + "/pecan-cc") +
          " -c " + Quote(kProgramsDir + "/counter.c") + " -o " + Quote(scratch / "x.o"),
      scratch);
  CHECK(loop.exit_code != 0);
  CHECK_THAT(loop.err, Catch::Contains("points back at a pecan wrapper"));

  CommandResult missing =
      RunCommand("PECAN_CC=no-such-compiler-xyz " + Quote(kWrappersDir + "/pecan-cc") + " -c " +
                     Quote(kProgramsDir + "/counter.c"),
                 scratch);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("cannot find the compiler"));
}
