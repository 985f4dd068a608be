// Deadlock detection while recording: a run whose threads are all blocked in synchronization for
// good ends within a few seconds without --timeout; pecan record prints who waits for what
// (symbolized) and exits 86, the trace is readable and holds the wait-for state, and pecan hunt
// reports it as observed. Runs that block for long but go on (a sleep, timed waits) are not.
#include <chrono>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

constexpr int kDeadlockStatus = 86;  // documented in pecan record --help and the README

struct Deadlocked {
  std::string program;
  std::vector<std::string> says;  // parts of the wait-for report
};

const std::vector<Deadlocked> kDeadlockedPrograms = {
    {"abba_always",
     {"T0 waits to join T1 (abba_always.c:40)",
      "T1 waits for mutex `b` (abba_always.c:16) held by T2 (taken at abba_always.c:25)",
      "T2 waits for mutex `a` (abba_always.c:27) held by T1 (taken at abba_always.c:14)"}},
    {"self_deadlock",
     {"T0 waits to join T1 (self_deadlock.c:27)",
      "T1 waits for mutex `table_lock` (self_deadlock.c:11), which it holds itself (taken at "
      "self_deadlock.c:18)"}},
    {"never_signalled",
     {"T0 waits to join T1 (never_signalled.c:24)",
      "T1 waits for a notify of condition `ready` (never_signalled.c:15)"}},
};

}  // namespace

TEST_CASE("pecan record ends a run whose threads all block for good and says who waits for what",
          "[e2e][record][deadlock]") {
  const std::string dir = e2e::FreshDirectory("record-deadlock");
  for (const Deadlocked& deadlocked : kDeadlockedPrograms) {
    INFO(deadlocked.program);
    const std::string trace = dir + "/" + deadlocked.program + ".pecan";
    const auto start = std::chrono::steady_clock::now();
    e2e::PecanRun record =
        e2e::RunPecan({"record", "-o", trace, "--", e2e::TestProgram(deadlocked.program)},
                      dir + "/" + deadlocked.program + ".log", 60);
    INFO(record.output);
    CHECK(e2e::ExitStatus(record.result) == kDeadlockStatus);
    // The default wait is 1.5 s; without the detection these programs never end.
    CHECK(SecondsSince(start) < 10);
    CHECK_THAT(record.output, Catch::Contains("pecan: deadlock: "));
    for (const std::string& part : deadlocked.says)
      CHECK_THAT(record.output, Catch::Contains(part));
    CHECK_THAT(record.output, !Catch::Contains("did not end within"));

    // The trace is complete (footer, exit) and analyzable, and holds the wait-for state.
    e2e::PecanRun analyze = e2e::RunPecan({"analyze", trace}, dir + "/analyze.log");
    INFO(analyze.output);
    CHECK(e2e::ExitStatus(analyze.result) == 0);
    e2e::PecanRun dump = e2e::RunPecan({"dump", "--format", "json", trace}, dir + "/dump.json", 60);
    const nlohmann::json tables = e2e::LastJsonLine(dump.output);
    REQUIRE(tables.is_object());
    CHECK(tables["complete"] == true);
    CHECK(tables["exit"]["exit_status"] == kDeadlockStatus);
    CHECK(tables["blocked_threads"].size() == deadlocked.says.size());
  }
}

TEST_CASE("pecan record does not end a run that blocks for long but goes on",
          "[e2e][record][deadlock]") {
  const std::string dir = e2e::FreshDirectory("record-no-deadlock");
  // slow_worker: main joins a worker that sleeps 3 s (not synchronization); timed_waits: every
  // thread waits on a condition with a timeout for 3 s. Both outlast the wait many times over.
  for (const std::string program : {"slow_worker", "timed_waits"}) {
    INFO(program);
    const std::string trace = dir + "/" + program + ".pecan";
    e2e::PecanRun record = e2e::RunPecan(
        {"record", "--deadlock-wait", "0.5", "-o", trace, "--", e2e::TestProgram(program)},
        dir + "/" + program + ".log", 60);
    INFO(record.output);
    CHECK(e2e::ExitStatus(record.result) == 0);
    CHECK_THAT(record.output, !Catch::Contains("pecan: deadlock"));
    CHECK_THAT(record.output, !Catch::Contains("pecan-rt: deadlock"));
    e2e::PecanRun dump = e2e::RunPecan({"dump", "--format", "json", trace}, dir + "/dump.json", 60);
    const nlohmann::json tables = e2e::LastJsonLine(dump.output);
    REQUIRE(tables.is_object());
    CHECK(tables["blocked_threads"].empty());
    CHECK(tables["exit"]["exit_status"] == 0);
  }
}

TEST_CASE(
    "pecan hunt reports a run the runtime ended as deadlocked without waiting for its "
    "record timeout",
    "[e2e][hunt][deadlock]") {
  const std::string dir = e2e::FreshDirectory("hunt-deadlock");
  const std::string out = dir + "/abba_always";
  const auto start = std::chrono::steady_clock::now();
  // The default --record-timeout is 60 s: a hunt that waited for it would take longer.
  e2e::PecanRun hunt =
      e2e::RunPecan({"hunt", "--timeout", "5", "-o", out, "--", e2e::TestProgram("abba_always")},
                    out + ".log", 120);
  INFO(hunt.output);
  CHECK(e2e::ExitStatus(hunt.result) == 1);
  CHECK(SecondsSince(start) < 40);
  CHECK_THAT(hunt.output, Catch::Contains("every thread was blocked"));
  CHECK_THAT(hunt.output,
             Catch::Contains("OBSERVED in the recorded run: it did not end (deadlock)"));
  CHECK_THAT(hunt.output, Catch::Contains("T1 waits for lock `b` (abba_always.c:16) held by T2 "
                                          "(taken at abba_always.c:25)"));
  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  REQUIRE(verdicts.contains("observed_hang"));
  CHECK(verdicts["observed_hang"]["kind"] == "deadlock");
  CHECK(verdicts["observed_hang"]["error"].is_null());
}
