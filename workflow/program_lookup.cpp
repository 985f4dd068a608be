#include "workflow/program_lookup.h"

namespace pecan::workflow {

std::string FindExecutable(const std::string& program) {
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

std::string RequireExecutable(const std::string& program, const std::string& context) {
  std::string found = FindExecutable(program);
  if (!found.empty()) return found;
  throw PecanError(context + program +
                   (program.find('/') != std::string::npos ? ": no such executable file"
                                                           : ": not found in PATH"));
}

std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& overrides,
                                           const std::vector<std::string>& unset) {
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

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace pecan::workflow
