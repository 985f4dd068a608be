// pecan fuzz --strategy drfinder on a race hidden by lock order (tests/e2e/programs/
// drfinder_example.c, after DrFinder's motivating example): the first recorded run gives the
// may-trigger relations, and the scheduled runs reverse the lock order so the race on `config`
// is observed under happens-before. Runs are functions of their seeds, so the counts hold on
// every machine.
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

TEST_CASE("DrFinder observes a race hidden by lock order within a few runs",
          "[e2e][fuzz][drfinder]") {
  const std::string dir = e2e::FreshDirectory("drfinder-example");
  const std::string out = dir + "/dr";
  const e2e::PecanRun run = e2e::RunPecan({"fuzz", "--strategy", "drfinder", "--runs", "5", "-o",
                                           out, "--", e2e::TestProgram("drfinder_example")},
                                          out + ".log", 300);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 0);  // the race is real but makes nothing fail
  CHECK_THAT(run.output, Catch::Contains("may-trigger relations from a first recorded run"));
  const nlohmann::json summary = e2e::ReadJson(out + "/fuzz.json");
  REQUIRE(summary["runs"].size() == 5);
  // In the program's own order the loader registers first and registry_lock's hand-off orders
  // the write before the read; a run that shows the race reversed the lock order.
  size_t observed = 0;
  size_t first = 0;
  for (const auto& r : summary["runs"]) {
    REQUIRE(r.contains("races"));
    bool on_config = false;
    for (const auto& race : r["races"]) {
      const std::set<int> lines{race["first"]["site"]["line"].get<int>(),
                                race["second"]["site"]["line"].get<int>()};
      CHECK(lines == std::set<int>{25, 34});
      CHECK(race["first"]["variable"] == "config");
      on_config = true;
    }
    if (on_config && observed++ == 0) first = r["seed"].get<size_t>() + 1;
  }
  CHECK(observed >= 3);
  CHECK(first >= 1);
  CHECK(first <= 2);
}
