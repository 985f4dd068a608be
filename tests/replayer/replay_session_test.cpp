// ReplaySession in-process: the verdict file it keeps current through a hatched run, a refuted
// prediction, and a failure after hatching.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <thread>

#include "replayer/replay_session.h"
#include "scheduler_harness.h"

using namespace pecan;
using namespace pecan::replay;
using namespace pecan::replay::testing;
using K = EventKind;

namespace {

// This process's directory for the runtime's verdicts, removed when the tests end.
struct VerdictDirectory {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("pecan-replay-session-" + std::to_string(getpid()));
  ~VerdictDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};
const VerdictDirectory verdict_directory;

std::string TempVerdictPath(const std::string& name) {
  std::filesystem::create_directories(verdict_directory.path);
  return (verdict_directory.path / name).string();
}

ReplaySession::Environment TestEnvironment() {
  ReplaySession::Environment environment;
  environment.locator = std::make_unique<OffsetIsPcLocator>();
  environment.create_thread = nullptr;  // no watchdog: these runs never stall
  environment.exit_on_stop = false;
  return environment;
}

// Main forks T1; T1 writes x, main reads x (the race's two events), then main goes on.
void RunRace(ReplaySession& session, uint64_t read_address) {
  Scheduler& s = session.scheduler();
  std::thread main_thread([&] {
    s.AttachMainThread();
    s.OnEvent(Ev(K::kFork, 1));
    LogicalThread id = s.ReserveChild();
    s.ChildForked(id);  // its FORK has run
    std::thread child([&, id] {
      s.AttachThread(id);
      s.OnEvent(Ev(K::kWrite, 10, 0x5000));
      s.DetachThread();
    });
    s.OnEvent(Ev(K::kRead, 2, read_address));
    s.OnEvent(Ev(K::kWrite, 3));
    child.join();
    s.DetachThread();
  });
  main_thread.join();
}

const char* kRaceSteps = "T0:fork@1 T1:write@10:4096! T0:read@2:4096! T0:write@3";

}  // namespace

TEST_CASE("a hatched replay leaves a HATCHED verdict naming the anomaly's events",
          "[replayer][session]") {
  ReplayOptions options;
  options.verdict_path = TempVerdictPath("hatched.verdict");
  options.quiet = true;
  ReplaySession session(options, MakeClip("0 1<0", kRaceSteps), TestEnvironment());
  session.Start();
  proto::Verdict verdict;
  REQUIRE(ReadVerdictFile(options.verdict_path, verdict));
  CHECK(verdict.outcome() == proto::Verdict::OUTCOME_UNSPECIFIED);
  CHECK(verdict.steps_total() == 4);

  RunRace(session, 0x5000);
  REQUIRE(ReadVerdictFile(options.verdict_path, verdict));
  CHECK(verdict.outcome() == proto::Verdict::HATCHED);
  CHECK(verdict.finding_id() == "test-finding");
  CHECK(verdict.steps_executed() == 4);
  // T0 reached its read (the race's second event) before T1's write ran: the race formed when
  // the write ran with the read about to run on the same location.
  CHECK(verdict.reason() ==
        "the anomaly formed at step 2 of 4: T1 write at loc 0xa, T0 read at loc 0x2 (the last of "
        "them was about to run on the same location, its thread stopped at it)");
  CHECK(verdict.failure().empty());

  session.OnAssertionFailure("x == 1", "prog.c", 12, "main");
  REQUIRE(ReadVerdictFile(options.verdict_path, verdict));
  CHECK(verdict.outcome() == proto::Verdict::HATCHED);
  CHECK(verdict.failure() == "assertion");
  CHECK_THAT(verdict.reason(), Catch::EndsWith("then prog.c:12: main: assertion `x == 1' failed"));
  session.OnFatalSignal(6);
  REQUIRE(ReadVerdictFile(options.verdict_path, verdict));
  CHECK(verdict.failure() == "assertion");
  CHECK(verdict.signal() == 6);
}

TEST_CASE("a refuted prediction leaves an INFEASIBLE verdict with the reason",
          "[replayer][session]") {
  ReplayOptions options;
  options.verdict_path = TempVerdictPath("refuted.verdict");
  options.quiet = true;
  ReplaySession session(options, MakeClip("0 1<0", kRaceSteps), TestEnvironment());
  session.Start();
  RunRace(session, 0x6000);
  proto::Verdict verdict;
  REQUIRE(ReadVerdictFile(options.verdict_path, verdict));
  CHECK(verdict.outcome() == proto::Verdict::INFEASIBLE);
  CHECK(verdict.steps_executed() == 3);
  CHECK_THAT(verdict.reason(), Catch::StartsWith("anomaly refuted: the anomaly's events ran in "
                                                 "order but not on one location"));
}

TEST_CASE("exiting before the schedule ends is infeasible", "[replayer][session]") {
  ReplayOptions options;
  options.verdict_path = TempVerdictPath("exited.verdict");
  options.quiet = true;
  ReplaySession session(options, MakeClip("0 1<0", kRaceSteps), TestEnvironment());
  session.Start();
  std::thread main_thread([&] {
    session.scheduler().AttachMainThread();
    session.scheduler().OnEvent(Ev(K::kFork, 1));
    session.OnProgramExit(0);
    session.scheduler().DetachThread();
  });
  main_thread.join();
  proto::Verdict verdict;
  REQUIRE(ReadVerdictFile(options.verdict_path, verdict));
  CHECK(verdict.outcome() == proto::Verdict::INFEASIBLE);
  CHECK(verdict.reason() ==
        "program exited: the program exited with status 0 before the schedule ended (step 2 of "
        "4, T1 write at loc 0xa)");
}
