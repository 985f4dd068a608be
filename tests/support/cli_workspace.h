// A scratch folder for tests that run the built `pecan` binary: write input files into it, run
// `pecan ARGS` there with stdout and stderr captured apart, read what came out.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pecan::test {

struct CliRun {
  int status = -1;  // the exit status; -1 when pecan did not exit by itself
  std::string out;
  std::string err;
};

inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class CliWorkspace {
 public:
  // A fresh folder <tmp>/pecan-<name>-<pid>, removed again at the end; `pecan` is the binary.
  CliWorkspace(const std::string& name, std::string pecan)
      : dir_(std::filesystem::temp_directory_path() /
             ("pecan-" + name + "-" + std::to_string(getpid()))),
        pecan_(std::move(pecan)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~CliWorkspace() { std::filesystem::remove_all(dir_); }
  CliWorkspace(const CliWorkspace&) = delete;
  CliWorkspace& operator=(const CliWorkspace&) = delete;

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  // Runs `pecan <args>` in the workspace, stdin empty, stdout and stderr captured apart.
  CliRun Pecan(const std::string& args) const {
    const std::string command = "cd '" + dir_.string() + "' && " + pecan_ + " " + args + " >" +
                                Path("stdout") + " 2>" + Path("stderr") + " </dev/null";
    const int raw = std::system(command.c_str());
    CliRun result;
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    result.out = ReadWholeFile(Path("stdout"));
    result.err = ReadWholeFile(Path("stderr"));
    return result;
  }

 private:
  std::filesystem::path dir_;
  std::string pecan_;
};

}  // namespace pecan::test
