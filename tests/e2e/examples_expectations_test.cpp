// Checks examples/expected.json against the example sources (every line it names carries a BUG
// marker, so editing an example cannot silently shift the expected lines), and that the examples
// hide their bugs: a normal run, not recorded, exits 0 every time.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e_paths.h"
#include "workflow/child_process.h"
#include "workflow/job_runner.h"

extern char** environ;

namespace {

std::vector<std::string> SourceLines(const std::string& file) {
  std::ifstream in(std::string(kExamplesSourceDir) + "/" + file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("Every line named in examples/expected.json is marked BUG in its source",
          "[e2e][examples]") {
  std::ifstream in(std::string(kExamplesSourceDir) + "/expected.json");
  REQUIRE(in);
  nlohmann::json expected = nlohmann::json::parse(in);
  REQUIRE(expected["programs"].size() >= 11);
  size_t buggy = 0, correct = 0;
  for (const auto& [name, program] : expected["programs"].items()) {
    std::vector<std::string> lines = SourceLines(program["source"]);
    REQUIRE_FALSE(lines.empty());
    std::vector<int> named;
    for (const auto& line : program["involved_lines"]) named.push_back(line);
    for (const auto& list : {program["confirmed"], program["refuted"]})
      for (const auto& finding : list)
        for (const auto& line : finding["lines"]) named.push_back(line);
    for (int line : named) {
      INFO(name << " line " << line);
      REQUIRE(line >= 1);
      REQUIRE(static_cast<size_t>(line) <= lines.size());
      CHECK(lines[line - 1].find("BUG") != std::string::npos);
    }
    for (const auto& finding : program["confirmed"]) {
      for (const auto& line : finding["lines"]) {
        INFO(name << ": confirmed line " << line << " must be an involved line");
        CHECK(std::find(program["involved_lines"].begin(), program["involved_lines"].end(), line) !=
              program["involved_lines"].end());
      }
    }
    (program["confirmed"].empty() ? correct : buggy)++;
  }
  CHECK(buggy >= 8);
  CHECK(correct >= 3);
}

TEST_CASE("Every example's normal run, not recorded, exits 0 ten times out of ten",
          "[e2e][examples]") {
  // No PECAN_* variable: the runtime is loaded but neither records nor replays.
  std::vector<std::string> pecan_variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string name = std::string(*entry).substr(0, std::string(*entry).find('='));
    if (name.rfind("PECAN_", 0) == 0) pecan_variables.push_back(name);
  }
  constexpr int kRuns = 10;
  const size_t examples = std::size(kExampleBinaries);
  REQUIRE(examples >= 11);
  const std::string scratch = std::string(kScratchDir) + "/plain-runs";
  std::filesystem::create_directories(scratch);
  std::vector<pecan::workflow::ChildResult> results(examples * kRuns);
  pecan::workflow::RunJobs(results.size(), 2, [&](size_t i) {
    pecan::workflow::ChildSpec spec;
    spec.argv = {kExampleBinaries[i / kRuns].second};
    spec.unset_environment = pecan_variables;
    spec.stdout_path = scratch + "/" + std::to_string(i) + ".log";
    spec.stderr_path = spec.stdout_path;
    spec.timeout_seconds = 60;
    results[i] = pecan::workflow::RunChild(spec);
  });
  for (size_t i = 0; i < results.size(); i++) {
    const std::string log = scratch + "/" + std::to_string(i) + ".log";
    std::ifstream in(log);
    std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(kExampleBinaries[i / kRuns].first << " run " << i % kRuns + 1 << " output:\n" << output);
    CHECK(results[i].exited);
    CHECK(results[i].exit_status == 0);
    CHECK_FALSE(results[i].timed_out);
  }
}
