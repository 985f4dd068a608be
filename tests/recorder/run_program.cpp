// Child-process plumbing for the recorder's end-to-end tests: posix_spawn with a pipe on
// stdout, waitpid for the outcome.
#include "run_program.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <sstream>

extern char** environ;

namespace pecan::rt_test {
namespace {

std::vector<std::string> SplitWords(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

uint64_t ProgramResult::Address(const std::string& name) const {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    auto words = SplitWords(line);
    if (words.size() >= 2 && words[0] == name) return std::stoull(words[1], nullptr, 16);
  }
  FAIL("program printed no address for " << name << "; output:\n" << out);
  return 0;
}

uint64_t ProgramResult::Size(const std::string& name) const {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    auto words = SplitWords(line);
    if (words.size() >= 3 && words[0] == name) return std::stoull(words[2]);
  }
  FAIL("program printed no size for " << name);
  return 0;
}

long ProgramResult::Count(const std::string& name) const {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    auto words = SplitWords(line);
    if (words.size() >= 3 && words[0] == "count" && words[1] == name) return std::stol(words[2]);
  }
  FAIL("program printed no count for " << name);
  return 0;
}

ProgramResult RunProgram(const std::string& path, const std::vector<std::string>& args,
                         const std::map<std::string, std::string>& env, const std::string& cwd) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text = *entry;
    size_t eq = text.find('=');
    if (eq != std::string::npos) merged[text.substr(0, eq)] = text.substr(eq + 1);
  }
  for (const auto& [name, value] : env) {
    if (value.empty()) {
      merged.erase(name);
    } else {
      merged[name] = value;
    }
  }
  std::vector<std::string> env_text;
  for (const auto& [name, value] : merged) env_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (auto& text : env_text) envp.push_back(text.data());
  envp.push_back(nullptr);

  std::vector<std::string> argv_text{path};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& text : argv_text) argv.push_back(text.data());
  argv.push_back(nullptr);

  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  pid_t pid = 0;
  int error = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  REQUIRE(error == 0);

  ProgramResult result;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof(buffer))) > 0;) {
    result.out.append(buffer, size_t(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  result.exited = WIFEXITED(status);
  result.exit_status = result.exited ? WEXITSTATUS(status) : 0;
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return result;
}

std::string Program(const std::string& name, const std::string& compiler) {
  return std::string(PECAN_RT_TEST_PROGRAM_DIR) + "/" + name + "." + compiler;
}

std::string ScratchDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(PECAN_RT_TEST_SCRATCH_DIR) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

RecordedRun RunRecorded(const std::string& program, const std::vector<std::string>& args,
                        const std::string& label, std::map<std::string, std::string> env) {
  RecordedRun run;
  run.trace_path = ScratchDir(label) + "/trace.pecan";
  env["PECAN_MODE"] = "record";
  env["PECAN_TRACE"] = run.trace_path;
  run.result = RunProgram(program, args, env);
  return run;
}

}  // namespace pecan::rt_test
