// Tests of the warning logger (captured by a sink, restored afterwards) and of the progress
// reporter's rule to draw only on a terminal.
#include <catch2/catch.hpp>

#include <unistd.h>

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
