// Shared helpers of the end-to-end tooling tests: run a shell command capturing its exit code,
// stdout and stderr; a temporary folder that cleans itself up; where the built tools are.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace tooling_test {

// Paths into the build and source trees, from tests/tooling/CMakeLists.txt.
inline const std::string kPecan = PECAN_TEST_CLI;
inline const std::string kWrappersDir = PECAN_TEST_WRAPPERS_DIR;
inline const std::string kProgramsDir = PECAN_TEST_PROGRAMS_DIR;
inline const std::string kConsumerDir = PECAN_TEST_CONSUMER_DIR;
inline const std::string kBuildDir = PECAN_TEST_BUILD_DIR;
inline const std::string kCMake = PECAN_TEST_CMAKE;

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("pecan-tooling-" + tag + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string Quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

struct CommandResult {
  int exit_code = -1;  // the shell's: 128+N when the command died by signal N
  std::string out;
  std::string err;
};

// Runs `command` with /bin/sh in `directory`, feeding `input` on stdin.
inline CommandResult RunCommand(const std::string& command, const TempDir& scratch,
                                const std::string& input = "", const std::string& directory = ".") {
  std::string in_path = scratch / "command.in";
  std::ofstream(in_path) << input;
  std::string full = "cd " + Quote(directory) + " && ( " + command + " ) <" + Quote(in_path) +
                     " >" + Quote(scratch / "command.out") + " 2>" + Quote(scratch / "command.err");
  int status = std::system(full.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFile(scratch / "command.out");
  result.err = ReadFile(scratch / "command.err");
  return result;
}

// The line number of the first line of `file` containing `marker`, 0 if none.
inline unsigned LineOf(const std::string& file, const std::string& marker) {
  std::ifstream in(file);
  std::string line;
  for (unsigned number = 1; std::getline(in, line); ++number) {
    if (line.find(marker) != std::string::npos) return number;
  }
  return 0;
}

// Builds tests/tooling/programs/counter.c once per test process with pecan-cc (gcc, -g) and
// returns the program's path; the program is named "counter".
// counter.c built with pecan-cc around `compiler` (gcc or clang), once per compiler.
inline std::string InstrumentedCounter(const std::string& compiler = "gcc") {
  static TempDir folder("counter");
  static std::map<std::string, std::string> built;
  auto found = built.find(compiler);
  if (found != built.end()) return found->second;
  // gcc's build keeps the plain name: tests check the trace named after the program.
  std::string path = folder / (compiler == "gcc" ? std::string("counter") : "counter-" + compiler);
  std::string command = "PECAN_CC=" + compiler + " " + Quote(kWrappersDir + "/pecan-cc") +
                        " -g -O1 -pthread " + Quote(kProgramsDir + "/counter.c") + " -o " +
                        Quote(path);
  if (std::system(command.c_str()) != 0) throw std::runtime_error("cannot build " + path);
  built.emplace(compiler, path);
  return path;
}

}  // namespace tooling_test
