// SignalName: the abbreviation users know from kill(1), or the number when there is none.
#include <catch2/catch.hpp>

#include <signal.h>

#include "trace_format/signal_name.h"

TEST_CASE("signals are named as kill -l names them, unknown numbers by number", "[signal]") {
  CHECK(pecan::SignalName(SIGSEGV) == "SIGSEGV");
  CHECK(pecan::SignalName(SIGABRT) == "SIGABRT");
  CHECK(pecan::SignalName(SIGKILL) == "SIGKILL");
  CHECK(pecan::SignalName(1000) == "signal 1000");
}
