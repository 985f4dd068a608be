// Tests of the warning logger (captured by a sink, restored afterwards) and of the progress
// reporter's rule to draw only on a terminal.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "trace_format/log.h"
#include "trace_format/progress.h"

using namespace pecan;

TEST_CASE("warnings go to the installed sink and captures nest", "[log]") {
  ScopedWarningCapture outer;
  LogWarning("first");
  {
    ScopedWarningCapture inner;
    LogWarning("second");
    REQUIRE(inner.messages().size() == 1);
    CHECK(inner.messages()[0] == "second");
  }
  LogWarning("third");
  CHECK(outer.messages() == std::vector<std::string>{"first", "third"});
}

TEST_CASE("progress is shown only when stderr is a terminal", "[log]") {
  ProgressReporter progress("reading", 200);
  CHECK(progress.enabled() == (isatty(STDERR_FILENO) == 1));
  progress.Update(100);
  progress.Update(250);  // beyond the total: clamped, never past 100%
  progress.Finish();
  CHECK_FALSE(progress.enabled());
}

TEST_CASE("a long run's progress writes a line now and then to a log", "[log]") {
  // stderr to a file for the duration (under ctest it is not a terminal anyway).
  char path[] = "/tmp/pecan-progress-XXXXXX";
  const int file = mkstemp(path);
  REQUIRE(file >= 0);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(file, STDERR_FILENO);
  {
    ProgressReporter progress("reading", 200);
    progress.Update(50, "not shown: no line before KeepAlive's first interval");
    progress.KeepAlive(1);
    progress.Update(100, "half");
    std::this_thread::sleep_for(std::chrono::milliseconds(2600));
    progress.Finish();
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // nothing after Finish
  }
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(file);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::remove(path);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "pecan: reading: 50% (100/200), half");
  CHECK(lines[1] == "pecan: reading: 50% (100/200), half, 2 s");
}
