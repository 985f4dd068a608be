// Shared helpers of the end-to-end tests: where the pecan binary and the examples are, running
// pecan as a child process, reading JSON files, and the examples' expected outcomes.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "e2e_paths.h"
#include "proto/clip.pb.h"
#include "trace_format/clip_file.h"
#include "workflow/child_process.h"

namespace e2e {

inline nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return nlohmann::json::parse(in);
}

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last line of `output` that starts with '{', parsed (`pecan replay --json`'s verdict
// follows the program's own output); null when there is none.
inline nlohmann::json LastJsonLine(const std::string& output) {
  nlohmann::json last;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind('{', 0) != 0) continue;
    nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    if (!parsed.is_discarded()) last = std::move(parsed);
  }
  return last;
}

// A fresh directory for one test's output, removed first if a previous run left it.
inline std::string FreshDirectory(const std::string& name) {
  std::string dir = std::string(kScratchDir) + "/" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

struct PecanRun {
  pecan::workflow::ChildResult result;
  std::string output;  // stdout and stderr together
};

inline PecanRun RunPecan(const std::vector<std::string>& arguments, const std::string& log_path,
                         double timeout_seconds = 300) {
  pecan::workflow::ChildSpec spec;
  spec.argv = {kPecanBinary};
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  spec.timeout_seconds = timeout_seconds;
  PecanRun run;
  run.result = pecan::workflow::RunChild(spec);
  run.output = ReadText(log_path);
  return run;
}

// Runs pecan with `cwd` as its working directory (through /bin/sh), with extra environment.
inline PecanRun RunPecanIn(const std::string& cwd, const std::vector<std::string>& arguments,
                           const std::string& log_path,
                           const std::map<std::string, std::string>& environment = {}) {
  pecan::workflow::ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd, kPecanBinary};
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  spec.environment = environment;
  spec.stdout_path = log_path;
  spec.stderr_path = log_path;
  spec.timeout_seconds = 300;
  PecanRun run;
  run.result = pecan::workflow::RunChild(spec);
  run.output = ReadText(log_path);
  return run;
}

// The directory that holds the sources (examples/'s parent).
inline std::string SourceTree() {
  return std::filesystem::path(kExamplesSourceDir).parent_path().string();
}

inline nlohmann::json Expectations() {
  return ReadJson(std::string(kExamplesSourceDir) + "/expected.json");
}

// A program of the replay tests (tests/e2e/programs/), built like the examples.
inline std::string TestProgram(const std::string& name) {
  for (const auto& [program, path] : kTestProgramBinaries)
    if (program == name) return path;
  throw std::runtime_error("no test program named " + name);
}

// How a pecan child ended, as a shell would say it: its exit status, or 128 + the signal.
inline int ExitStatus(const pecan::workflow::ChildResult& result) {
  return result.exited ? result.exit_status : 128 + result.signal;
}

inline std::string ExampleBinary(const std::string& name) {
  for (const auto& [example, path] : kExampleBinaries)
    if (example == name) return path;
  throw std::runtime_error("no example named " + name);
}

// The source lines of a finding's events (from verdicts.json / summary.json), as a sorted list.
inline std::multiset<int> FindingLines(const nlohmann::json& finding) {
  std::multiset<int> lines;
  for (const auto& event : finding["events"]) lines.insert(event["site"].value("line", 0));
  return lines;
}

// Records `program`, analyzes it and writes a clip per finding into `dir`; returns the clip of
// the race whose two events are at `lines` of the program's source.
inline std::string RaceClip(const std::string& program, const std::string& dir,
                            const std::multiset<int>& lines) {
  const std::string trace = dir + "/trace.pecan";
  REQUIRE(ExitStatus(
              RunPecan({"record", "-q", "-o", trace, "--", program}, dir + "/r.log").result) == 0);
  REQUIRE(ExitStatus(
              RunPecan({"analyze", trace, "-f", "json", "-o", dir + "/report.json"}, dir + "/a.log")
                  .result) == 0);
  REQUIRE(
      ExitStatus(RunPecan({"clips", trace, "--report", dir + "/report.json", "-o", dir + "/clips"},
                          dir + "/c.log")
                     .result) == 0);
  const nlohmann::json report = ReadJson(dir + "/report.json");
  for (const auto& finding : report["findings"])
    if (finding["pattern"] == "race" && FindingLines(finding) == lines)
      return dir + "/clips/" + finding["id"].get<std::string>() + ".clip";
  FAIL("no race at the expected lines in\n" << ReadText(dir + "/report.json"));
  return "";
}

inline std::string Describe(const nlohmann::json& finding) {
  std::string text = finding.value("pattern", "?") + " " + finding.value("variant", "?") + " at";
  for (const auto& event : finding["events"]) text += " " + event["site"].value("text", "?");
  if (finding["verdict"].is_object()) text += " -> " + finding["verdict"].value("outcome", "?");
  return text;
}

// The schedule a clip holds, as text: one "thread:kind@site" per step.
inline std::string ScheduleText(const std::string& clip_path) {
  const pecan::proto::Clip clip = pecan::ReadClipFile(clip_path);
  std::string text;
  int step = 0;
  for (int run = 0; run < clip.run_thread_size(); ++run)
    for (uint32_t i = 0; i < clip.run_length(run); ++i, ++step)
      text += std::to_string(clip.run_thread(run)) + ":" + std::to_string(clip.step_kind(step)) +
              "@" + std::to_string(clip.step_site(step)) + " ";
  return text;
}

}  // namespace e2e
