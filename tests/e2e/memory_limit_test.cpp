// --max-memory through the real binary: an analysis past the bound ends with "out of memory"
// and exit status 3 (analyze, clips), never as a damaged trace or an internal error; triage
// reports such a trace as "out of memory", analyzes the others, and exits 3 only when nothing
// could be analyzed; bad sizes are refused like every bad option.
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kHeld = {"--regions", "functions"};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// Two threads making `events` random accesses to 5,000 variables: its analysis under function
// regions, which holds the trace's events, needs well over 40 MiB (the trace alone is about 22
// bytes per event in memory). The built-in patterns under lock regions are searched on the file
// (analyzer/streaming_analysis.h) and fit the bound; so `kHeld` selects function regions.
std::string BigTrace(const std::string& dir, int events, unsigned variables = 5000) {
  const std::string text = dir + "/big.std";
  {
    std::ofstream out(text);
    std::mt19937 random(7);
    out << "T0|fork(T1)|1\nT0|fork(T2)|2\n";
    for (int i = 0; i < events; i++) {
      const unsigned v = random() % variables;
      out << "T" << 1 + random() % 2 << "|" << (random() % 2 ? "r" : "w") << "(V" << v << ")|"
          << 10 + v % 50 << "\n";
    }
    out << "T0|join(T1)|3\nT0|join(T2)|4\n";
  }
  const std::string trace = dir + "/traces/big.pecan";
  fs::create_directories(dir + "/traces");
  REQUIRE(e2e::RunPecan({"convert", text, trace}, dir + "/convert.log").result.exit_status == 0);
  return trace;
}

// A trace with one race, analyzed in a few MiB.
std::string SmallTrace(const std::string& dir) {
  const std::string text = dir + "/small.std";
  std::ofstream(text) << "T0|fork(T1)|1\nT0|w(V1)|5\nT1|w(V1)|6\nT0|join(T1)|2\n";
  const std::string trace = dir + "/traces/small.pecan";
  fs::create_directories(dir + "/traces");
  REQUIRE(e2e::RunPecan({"convert", text, trace}, dir + "/convert.log").result.exit_status == 0);
  return trace;
}

}  // namespace

TEST_CASE("an analysis past --max-memory says out of memory, exit status 3",
          "[e2e][memory_limit]") {
  if (kSanitized) {
    WARN("pecan-test-skipped: sanitizer builds keep the sanitizer's allocator, unbounded");
    return;
  }
  const std::string dir = e2e::FreshDirectory("memory_limit_analyze");
  const std::string trace = BigTrace(dir, 300000);

  for (const std::string command : {"analyze", "clips"}) {
    std::vector<std::string> arguments = {command, trace, "--max-memory", "24M"};
    arguments.insert(arguments.end(), kHeld.begin(), kHeld.end());
    if (command == "clips") arguments.insert(arguments.end(), {"-o", dir + "/clips"});
    const e2e::PecanRun run = e2e::RunPecan(arguments, dir + "/" + command + ".log");
    INFO(run.output);
    CHECK(run.result.exit_status == 3);
    CHECK(run.output.find("pecan: error: out of memory: the memory bound of 24.0 MiB "
                          "(--max-memory) reached") != std::string::npos);
    CHECK(run.output.find("damaged") == std::string::npos);
    CHECK(run.output.find("internal error") == std::string::npos);
  }
  // The same analysis without the bound runs (it was the bound, not the trace); and within it,
  // the built-in patterns searched on the file.
  const e2e::PecanRun unbounded = e2e::RunPecan(
      {"analyze", trace, "--patterns", "race", "--max-memory", "0"}, dir + "/unbounded.log");
  INFO(unbounded.output);
  CHECK(unbounded.result.exit_status == 0);
  CHECK(unbounded.output.find("findings:") != std::string::npos);
  const e2e::PecanRun streamed =
      e2e::RunPecan({"analyze", trace, "--max-memory", "24M"}, dir + "/streamed.log");
  INFO(streamed.output);
  CHECK(streamed.result.exit_status == 0);
  CHECK(streamed.output.find("findings:") != std::string::npos);
}

TEST_CASE("a race search split over threads past --max-memory says out of memory",
          "[e2e][memory_limit]") {
  if (kSanitized) {
    WARN("pecan-test-skipped: sanitizer builds keep the sanitizer's allocator, unbounded");
    return;
  }
  // 100,000 variables: the race search's state per location (about 90 MB in all, split over the
  // threads) does not fit 64 MiB; measured, the bound is most often reached on one of the
  // search's own threads, whose failure must end the analysis as the main thread's would.
  const std::string dir = e2e::FreshDirectory("memory_limit_threads");
  const std::string trace = BigTrace(dir, 400000, 100000);
  const e2e::PecanRun bounded = e2e::RunPecan(
      {"analyze", trace, "--patterns", "race", "--threads", "3", "--max-memory", "64M"},
      dir + "/bounded.log", 120);
  INFO(bounded.output);
  CHECK(bounded.result.exit_status == 3);
  CHECK(bounded.output.find("pecan: error: out of memory: the memory bound of 64.0 MiB "
                            "(--max-memory) reached") != std::string::npos);
  CHECK(bounded.output.find("internal error") == std::string::npos);
  const e2e::PecanRun unbounded =
      e2e::RunPecan({"analyze", trace, "--patterns", "race", "--threads", "3", "--max-memory", "0"},
                    dir + "/unbounded.log", 120);
  INFO(unbounded.output);
  CHECK(unbounded.result.exit_status == 0);
  CHECK(unbounded.output.find("findings:") != std::string::npos);
}

TEST_CASE("triage reports a trace past --max-memory as out of memory, not damaged",
          "[e2e][memory_limit]") {
  if (kSanitized) {
    WARN("pecan-test-skipped: sanitizer builds keep the sanitizer's allocator, unbounded");
    return;
  }
  const std::string dir = e2e::FreshDirectory("memory_limit_triage");
  const std::string big = BigTrace(dir, 300000);
  SmallTrace(dir);

  // With two jobs the big trace is tried beside the small one, then alone: still too big.
  const e2e::PecanRun both = e2e::RunPecan({"triage", dir + "/traces", "-o", dir + "/out", "-j",
                                            "2", "--max-memory", "24M", kHeld[0], kHeld[1]},
                                           dir + "/triage.log");
  INFO(both.output);
  CHECK(both.result.exit_status == 0);
  CHECK(both.output.find("1 out of memory and skipped") != std::string::npos);
  CHECK(both.output.find("  out of memory: " + big + ": the memory bound of 24.0 MiB") !=
        std::string::npos);
  const nlohmann::json summary = e2e::ReadJson(dir + "/out/summary.json");
  CHECK(summary["counts"]["out_of_memory"] == 1);
  CHECK(summary["counts"]["damaged"] == 0);
  CHECK(summary["counts"]["findings"] == 1);  // the small trace's race
  for (const auto& t : summary["traces"])
    CHECK(t["status"] == (t["path"] == big ? "out of memory" : "ok"));
  CHECK(e2e::ReadText(dir + "/out/summary.html").find("1 trace skipped: out of memory") !=
        std::string::npos);

  // Nothing analyzed at all: exit status 3 and the reason.
  const e2e::PecanRun alone = e2e::RunPecan(
      {"triage", big, "-o", dir + "/alone", "--max-memory", "24M", kHeld[0], kHeld[1]},
      dir + "/alone.log");
  INFO(alone.output);
  CHECK(alone.result.exit_status == 3);
  CHECK(alone.output.find("no trace was analyzed: out of memory") != std::string::npos);
}

TEST_CASE("a --max-memory that is not a size is refused", "[e2e][memory_limit]") {
  const std::string dir = e2e::FreshDirectory("memory_limit_options");
  const std::string trace = SmallTrace(dir);
  const e2e::PecanRun bad =
      e2e::RunPecan({"analyze", trace, "--max-memory", "lots"}, dir + "/bad.log");
  CHECK(bad.result.exit_status == 2);
  CHECK(bad.output.find("--max-memory: 'lots' is not a memory size") != std::string::npos);
  const e2e::PecanRun tiny =
      e2e::RunPecan({"analyze", trace, "--max-memory", "100K"}, dir + "/tiny.log");
  CHECK(tiny.result.exit_status == 2);
  CHECK(tiny.output.find("too little") != std::string::npos);
  for (const std::string size : {"2G", "1.5GiB", "512MB", "0"}) {
    const e2e::PecanRun fine =
        e2e::RunPecan({"analyze", trace, "--max-memory", size}, dir + "/fine.log");
    INFO(size << ": " << fine.output);
    CHECK(fine.result.exit_status == 0);
  }
}
