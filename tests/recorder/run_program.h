// Runs a compiled test program as a child process with a chosen environment and captures its
// stdout, exit status or fatal signal. Also parses the "name 0xADDR" lines programs print.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pecan::rt_test {

struct ProgramResult {
  bool exited = false;
  int exit_status = 0;
  int signal = 0;
  std::string out;

  // "name 0x1234 [size]" lines: the address (and size, 0 if absent) printed for `name`.
  uint64_t Address(const std::string& name) const;
  uint64_t Size(const std::string& name) const;
  // "count name N" lines.
  long Count(const std::string& name) const;
};

// Runs `path args...` with the current environment plus `env` (NAME=value; an empty value
// removes the variable), in directory `cwd` if given. Fails the test if it cannot start.
ProgramResult RunProgram(const std::string& path, const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env,
                         const std::string& cwd = "");

// Path of a program built by tests/recorder/CMakeLists.txt, e.g. Program("stress", "gcc").
std::string Program(const std::string& name, const std::string& compiler);

// A fresh, empty directory under the build tree for one test's files.
std::string ScratchDir(const std::string& name);

// Runs `program` recorded into `<ScratchDir>/<label>.pecan` and returns the trace path.
struct RecordedRun {
  ProgramResult result;
  std::string trace_path;
};
RecordedRun RunRecorded(const std::string& program, const std::vector<std::string>& args,
                        const std::string& label, std::map<std::string, std::string> env = {});

}  // namespace pecan::rt_test
