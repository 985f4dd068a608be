// The realistic correct workload (bench/workloads/pcompress.c, a pigz-like parallel compressor)
// through the real binary: recorded, it prints the right summary; a hunt of it confirms nothing,
// fails in no replay or exploring run, and ends within its budget (issue 17).
#include <chrono>
#include <string>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace {

// What pcompress prints for its default input (64 KiB generated, 4 KiB blocks): the same in
// every run and under every schedule, since blocks are compressed independently and written in
// order.
constexpr const char* kDefaultSummary =
    "pcompress: 65536 -> 37879 bytes in 16 blocks (0 stored), 6509 matches, 16186 literals, "
    "adler32 434388a9, crc32 e7d6c46e, verified";

}  // namespace

TEST_CASE("pcompress recorded prints its verified summary", "[e2e][workload]") {
  const std::string dir = e2e::FreshDirectory("workload-record");
  const e2e::PecanRun run =
      e2e::RunPecan({"record", "-o", dir + "/trace.pecan", "--", e2e::TestProgram("pcompress")},
                    dir + "/record.log", 120);
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 0);
  CHECK_THAT(run.output, Catch::Contains(kDefaultSummary));
}

TEST_CASE("A default hunt of pcompress confirms nothing within its budget",
          "[e2e][workload][hunt]") {
  const std::string dir = e2e::FreshDirectory("workload-hunt");
  const std::string out = dir + "/out";
  constexpr double kBudget = 60;  // hunt's default: the race analysis alone takes 20-40 s here
  const auto start = std::chrono::steady_clock::now();
  const e2e::PecanRun run =
      e2e::RunPecan({"hunt", "--jobs", "2", "-o", out, "--", e2e::TestProgram("pcompress")},
                    dir + "/hunt.log", 300);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(run.output);
  CHECK(e2e::ExitStatus(run.result) == 0);
  CHECK_THAT(e2e::ReadText(out + "/record.log"), Catch::Contains(kDefaultSummary));

  const nlohmann::json verdicts = e2e::ReadJson(out + "/verdicts.json");
  CHECK(verdicts["counts"]["confirmed"] == 0);
  CHECK(verdicts["counts"]["exposed"] == 0);
  for (const auto& finding : verdicts["findings"]) {
    INFO(e2e::Describe(finding));
    CHECK_FALSE(finding.value("confirmed", false));
    CHECK_FALSE(finding.value("failed", false));
  }
  if (verdicts.contains("explore")) CHECK(verdicts["explore"]["failures"].empty());
  // No replay or exploring run starts after the budget; one under way may finish. Recording
  // and analysis come first and count against the budget too.
  CHECK(seconds < kBudget + 20);
}
