// `pecan record` end to end: the program's stdin, stdout and exit status pass through, a death
// by signal becomes 128+N with a message, options reach the runtime, and a program that was not
// built for recording is refused with advice instead of yielding an empty trace, and so is a trace
// path that cannot be written.
#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <string>
#include <utility>

#include "tooling_support.h"
#include "trace_format/trace_reader.h"

using namespace tooling_test;

namespace {

std::string Record(const std::string& arguments) {
  return Quote(kPecan) + " record " + arguments;
}

// The event count in "pecan: recorded N events of T threads ...", or -1.
long RecordedEvents(const std::string& stderr_text) {
  std::smatch match;
  if (!std::regex_search(stderr_text, match,
                         std::regex("recorded ([0-9]+) events of ([0-9]+) threads")))
    return -1;
  return std::stol(match[1]);
}

}  // namespace

TEST_CASE("pecan record passes exit status and stdout through and reports the trace", "[record]") {
  TempDir scratch("record-status");
  std::string trace = scratch / "t.pecan";
  CommandResult run = RunCommand(
      Record("-o " + Quote(trace) + " -- " + Quote(InstrumentedCounter()) + " exit 3"), scratch);
  INFO(run.err);
  CHECK(run.exit_code == 3);
  CHECK(run.out == "counter=2000\n");
  CHECK_THAT(run.err, Catch::Contains("events of 3 threads") && Catch::Contains(trace));
  long events = RecordedEvents(run.err);
  REQUIRE(events > 0);
  CHECK(pecan::ReadTrace(trace).size_events() == static_cast<size_t>(events));
}

TEST_CASE("pecan record passes stdin through and keeps the program's own options", "[record]") {
  TempDir scratch("record-stdin");
  // No `--`: everything from the program's name on belongs to the program.
  CommandResult run = RunCommand(
      Record("-o " + Quote(scratch / "t.pecan") + " " + Quote(InstrumentedCounter()) + " echo -o"),
      scratch, "hello pecan\n");
  INFO(run.err);
  CHECK(run.exit_code == 0);
  CHECK(run.out == "hello pecan\ncounter=2000\n");
}

TEST_CASE("pecan record returns 128+N for a program killed by signal N and says so", "[record]") {
  TempDir scratch("record-signal");
  std::string trace = scratch / "t.pecan";
  CommandResult run = RunCommand(
      Record("-o " + Quote(trace) + " -- " + Quote(InstrumentedCounter()) + " signal 6"), scratch);
  INFO(run.err);
  CHECK(run.exit_code == 128 + 6);
  CHECK_THAT(run.err, Catch::Contains("killed by SIGABRT"));
  CHECK(run.out == "counter=2000\n");
  CHECK(RecordedEvents(run.err) > 0);
  // The reader's warning about the trace the abort cut short is printed once (it was twice).
  const size_t first = run.err.find("truncated");
  CHECK((first == std::string::npos || run.err.find("truncated", first + 1) == std::string::npos));
}

TEST_CASE("pecan record names the trace after the program by default and expands %p", "[record]") {
  TempDir scratch("record-names");
  CommandResult plain =
      RunCommand(Record("-- " + Quote(InstrumentedCounter())), scratch, "", scratch.path());
  INFO(plain.err);
  CHECK(plain.exit_code == 0);
  CHECK(std::filesystem::exists(scratch / "pecan-counter.pecan"));

  CommandResult with_pid = RunCommand(
      Record("-o 'run-%p.pecan' -- " + Quote(InstrumentedCounter())), scratch, "", scratch.path());
  std::smatch match;
  REQUIRE(std::regex_search(with_pid.err, match, std::regex("into (run-[0-9]+\\.pecan)")));
  CHECK(std::filesystem::exists(scratch / match[1].str()));
}

TEST_CASE("pecan record options reach the runtime", "[record]") {
  TempDir scratch("record-options");
  std::string with_functions = scratch / "functions.pecan";
  std::string without_functions = scratch / "no-functions.pecan";
  REQUIRE(RunCommand(Record("-q -o " + Quote(with_functions) + " --chunk-events 100 -- " +
                            Quote(InstrumentedCounter())),
                     scratch)
              .exit_code == 0);
  REQUIRE(RunCommand(Record("-q -o " + Quote(without_functions) + " --no-func-events -- " +
                            Quote(InstrumentedCounter())),
                     scratch)
              .exit_code == 0);

  auto count_function_entries = [](const pecan::Trace& trace) {
    size_t entries = 0;
    for (auto kind : trace.kind) entries += kind == pecan::EventKind::kFuncEntry;
    return entries;
  };
  pecan::Trace functions = pecan::ReadTrace(with_functions);
  pecan::Trace no_functions = pecan::ReadTrace(without_functions);
  CHECK(functions.meta.settings.chunk_events == 100);
  CHECK(functions.meta.settings.func_events);
  CHECK(count_function_entries(functions) >= 2000);  // AddOne, called 2000 times
  CHECK_FALSE(no_functions.meta.settings.func_events);
  CHECK(count_function_entries(no_functions) == 0);
}

TEST_CASE("pecan record refuses a program not built for recording and says how to build it",
          "[record]") {
  TempDir scratch("record-refuse");
  std::string source = Quote(kProgramsDir + "/counter.c");
  REQUIRE(RunCommand("gcc -pthread " + source + " -o plain && gcc -fsanitize=thread -pthread " +
                         source + " -o tsan",
                     scratch, "", scratch.path())
              .exit_code == 0);

  CommandResult plain = RunCommand(Record("-- ./plain"), scratch, "", scratch.path());
  CHECK(plain.exit_code == 2);
  CHECK(plain.out.empty());  // refused before running
  CHECK_THAT(plain.err, Catch::Contains("was not built for recording") &&
                            Catch::Contains("pecan-cc") && Catch::Contains("pecan_instrument"));
  CHECK_FALSE(std::filesystem::exists(scratch / "pecan-plain.pecan"));

  CommandResult tsan = RunCommand(Record("-- ./tsan"), scratch, "", scratch.path());
  CHECK(tsan.exit_code == 2);
  CHECK_THAT(tsan.err, Catch::Contains("ThreadSanitizer's runtime"));

  CommandResult missing = RunCommand(Record("-- no-such-program-xyz"), scratch);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("not found in PATH"));
}

TEST_CASE("pecan record refuses a trace path it cannot write, before the program runs",
          "[record]") {
  TempDir scratch("record-unwritable");
  std::ofstream(scratch / "a-file") << "not a directory\n";
  const std::pair<std::string, std::string> cases[] = {
      {"/no/such/dir/t.pecan", "No such file or directory"},
      {scratch / "a-file/t.pecan", "Not a directory"},
      {scratch.path().string(), "Is a directory"},
  };
  for (const auto& [trace, cause] : cases) {
    CommandResult run =
        RunCommand(Record("-o " + Quote(trace) + " -- " + Quote(InstrumentedCounter())), scratch);
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.out.empty());  // the program did not run
    CHECK(run.err == "pecan: error: record: cannot write the trace " + trace + ": " + cause + "\n");
  }
  CHECK(ReadFile(scratch / "a-file") == "not a directory\n");
}
