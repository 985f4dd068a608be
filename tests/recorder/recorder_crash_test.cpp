// Crashes and unusual exits: the trace is readable and holds every event up to the end, the
// footer says how the program ended, and the program ends exactly as it does without pecan.
#include <signal.h>

#include <catch2/catch.hpp>

#include "run_program.h"
#include "trace_checks.h"
#include "trace_format/trace_reader.h"

namespace pecan::rt_test {
namespace {

struct Ending {
  std::string how;
  bool exited;
  int status_or_signal;
};

// The markers the main thread wrote, in trace order: exactly 1..count.
void CheckMarkers(const Trace& trace, const ProgramResult& out, int count) {
  const uint64_t begin = out.Address("markers");
  const uint64_t end = begin + out.Size("markers");
  std::vector<uint64_t> written;
  for (size_t i = 0; i < trace.size_events(); ++i) {
    if (trace.kind[i] == EventKind::kWrite && trace.addr[i] >= begin && trace.addr[i] < end) {
      CHECK(trace.thread[i] == 0);
      written.push_back(trace.addr[i]);
    }
  }
  REQUIRE(written.size() == size_t(count));
  for (int i = 0; i < count; ++i) CHECK(written[i] == begin + 8 * uint64_t(i));
}

}  // namespace

TEST_CASE("a crashing or exiting program leaves a complete trace and dies as it would have",
          "[recorder][crash]") {
  const int markers = 300;
  const std::vector<Ending> endings = {
      {"return", true, 4},      {"exit", true, 3},           {"_exit", true, 7},
      {"thread_exit", true, 5}, {"abort", false, SIGABRT},   {"assert", false, SIGABRT},
      {"segv", false, SIGSEGV}, {"sigterm", false, SIGTERM}, {"stackoverflow", false, SIGSEGV},
  };
  for (const Ending& ending : endings) {
    for (std::string compiler : {"gcc", "clang"}) {
      DYNAMIC_SECTION(ending.how << " " << compiler) {
        // Without pecan at all, the ending is what the table says.
        ProgramResult native =
            RunProgram(Program("crash", "native"), {ending.how, std::to_string(markers)}, {});
        REQUIRE(native.exited == ending.exited);
        REQUIRE((ending.exited ? native.exit_status : native.signal) == ending.status_or_signal);

        const std::string program = Program("crash", compiler);
        ProgramResult off =
            RunProgram(program, {ending.how, std::to_string(markers)}, {{"PECAN_MODE", ""}});
        CHECK(off.exited == native.exited);
        CHECK(off.exit_status == native.exit_status);
        CHECK(off.signal == native.signal);

        RecordedRun run = RunRecorded(program, {ending.how, std::to_string(markers)},
                                      "crash_" + ending.how + "_" + compiler);
        CHECK(run.result.exited == native.exited);
        CHECK(run.result.exit_status == native.exit_status);
        CHECK(run.result.signal == native.signal);

        TraceReader reader(run.trace_path);
        CHECK(reader.complete());
        Trace trace = ReadTrace(run.trace_path);
        INFO(Describe(CheckAll(trace)));
        CHECK(CheckAll(trace).empty());
        CheckMarkers(trace, run.result, markers);
        REQUIRE(trace.meta.exit.known);
        CHECK(trace.meta.exit.exited == ending.exited);
        if (ending.exited) {
          CHECK(trace.meta.exit.exit_status == ending.status_or_signal);
        } else {
          CHECK(trace.meta.exit.signal == ending.status_or_signal);
        }
        CHECK(trace.meta.dropped_events == 0);
      }
    }
  }
}

}  // namespace pecan::rt_test
