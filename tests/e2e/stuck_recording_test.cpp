// Recording never hangs: pecan record --timeout stops a program that deadlocks or hangs in
// every run (a self-deadlock, a wait nobody signals, a spin loop) within its bound, exits 124 and
// leaves a readable trace; pecan hunt reports such a run as an observed deadlock or hang, with
// who waits for what and the recorded clip that reproduces it. (The runtime's own deadlock
// detection, which ends the first two sooner, is tested in deadlock_recording_test.cpp.)
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Stuck {
  std::string program;
  std::string kind;  // the replay's failure: deadlock or timeout
  std::string says;  // part of its wait-for report
};

const std::vector<Stuck> kStuckPrograms = {
    {"self_deadlock", "deadlock",
     "T1 waits for lock `table_lock` (self_deadlock.c:11), which it holds itself (taken at "
     "self_deadlock.c:18)"},
    {"never_signalled", "deadlock",
     "T1 waits for a notify of condition `ready` (never_signalled.c:15)"},
    {"spin_forever", "timeout", "T1 spins: "},
};

}  // namespace

TEST_CASE("pecan record --timeout stops a program that never ends and keeps a readable trace",
          "[e2e][record][deadlock]") {
  const std::string dir = e2e::FreshDirectory("record-timeout");
  for (const Stuck& stuck : kStuckPrograms) {
    INFO(stuck.program);
    const std::string trace = dir + "/" + stuck.program + ".pecan";
    const auto start = std::chrono::steady_clock::now();
    // The runtime's deadlock detection off: the bound is what stops them here.
    e2e::PecanRun record = e2e::RunPecan({"record", "--timeout", "2", "--deadlock-wait", "0", "-o",
                                          trace, "--", e2e::TestProgram(stuck.program)},
                                         dir + "/" + stuck.program + ".log", 60);
    INFO(record.output);
    CHECK(e2e::ExitStatus(record.result) == 124);
    // The bound, then at most the 5 s SIGTERM grace (the runtime ends well within it).
    CHECK(SecondsSince(start) < 10);
    CHECK_THAT(record.output, Catch::Contains("did not end within 2 s"));
    e2e::PecanRun analyze = e2e::RunPecan({"analyze", trace}, dir + "/analyze.log");
    INFO(analyze.output);
    CHECK(e2e::ExitStatus(analyze.result) == 0);
  }
}

TEST_CASE(
    "pecan hunt reports a recorded run that deadlocks or hangs, with who waits for what and "
    "a clip that reproduces it",
    "[e2e][hunt][deadlock]") {
  const std::string dir = e2e::FreshDirectory("hunt-stuck");
  for (const Stuck& stuck : kStuckPrograms) {
    INFO(stuck.program);
    const std::string out = dir + "/" + stuck.program;
    const std::string program = e2e::TestProgram(stuck.program);
    const auto start = std::chrono::steady_clock::now();
    e2e::PecanRun hunt =
        e2e::RunPecan({"hunt", "--record-timeout", "2", "--timeout", "3", "-o", out, "--", program},
                      out + ".log", 120);
    INFO(hunt.output);
    CHECK(e2e::ExitStatus(hunt.result) == 1);
    CHECK(SecondsSince(start) < 60);
    CHECK_THAT(hunt.output, Catch::Contains("OBSERVED in the recorded run: it did not end (" +
                                            stuck.kind + ")"));
    CHECK_THAT(hunt.output, Catch::Contains(stuck.says));
    const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
    REQUIRE(verdicts.contains("observed_hang"));
    CHECK(verdicts["observed_hang"]["kind"] == stuck.kind);
    CHECK(verdicts["observed_hang"]["error"].is_null());
    // The recorded clip stops the same way on every replay, given the time to re-live the run
    // step by step: spin_forever's 2 s of recording are about 20,000 steps, which a replay
    // follows at about 5,000 a second here and at half that under a loaded `ctest -j2` (a 7 s
    // bound ran out 4 steps short there).
    for (int i = 0; i < 3; ++i) {
      e2e::PecanRun replay = e2e::RunPecan(
          {"replay", "--json", "--timeout", "15", out + "/clips/recorded.clip", "--", program},
          out + "-replay.log", 60);
      const nlohmann::json verdict = e2e::LastJsonLine(replay.output);
      INFO("replay " << i << ":\n" << replay.output);
      REQUIRE(verdict.is_object());
      CHECK(verdict["failure"] == stuck.kind);
      CHECK_THAT(verdict["failure_message"].get<std::string>(), Catch::Contains(stuck.says));
    }
  }
}
