// Finding the program a command runs and building its argv/environment for posix_spawn: the
// PATH look-up every command makes before it starts work, in one place.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "trace_format/error.h"

extern char** environ;

namespace pecan::cli {

// Where `program` would be started from, as posix_spawnp looks it up: itself when it holds a
// slash, else the first directory of PATH with an executable file of that name; "" when none.
inline std::string FindExecutable(const std::string& program) {
  auto executable = [](const std::string& path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error) && ::access(path.c_str(), X_OK) == 0;
  };
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return executable(program) ? program : "";
  const char* path = std::getenv("PATH");
  std::stringstream directories(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string directory; std::getline(directories, directory, ':');) {
    const std::string candidate = (directory.empty() ? "." : directory) + "/" + program;
    if (executable(candidate)) return candidate;
  }
  return "";
}

// FindExecutable's answer, or a PecanError "<context><program>: no such executable file" (or
// ": not found in PATH"): the check a command makes before it starts work.
inline std::string RequireExecutable(const std::string& program, const std::string& context) {
  std::string found = FindExecutable(program);
  if (!found.empty()) return found;
  throw PecanError(context + program +
                   (program.find('/') != std::string::npos ? ": no such executable file"
                                                           : ": not found in PATH"));
}

// This process's environment with `overrides` set (replacing variables of the same name) and
// the variables named in `unset` left out.
inline std::vector<std::string> MergedEnvironment(
    const std::map<std::string, std::string>& overrides,
    const std::vector<std::string>& unset = {}) {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    bool dropped = overrides.count(name) > 0;
    for (const std::string& gone : unset) dropped = dropped || gone == name;
    if (!dropped) result.push_back(std::move(text));
  }
  for (const auto& [name, value] : overrides) result.push_back(name + "=" + value);
  return result;
}

// The null-terminated char* array posix_spawn wants, pointing into `strings`.
inline std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace pecan::cli
