// Checks examples/expected.json against the example sources: every line it names carries a BUG
// marker, so editing an example cannot silently shift the expected lines.
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e_paths.h"

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
