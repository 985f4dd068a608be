// SIGINT and SIGTERM to pecan record, hunt, replay and triage through the real binary: within a
// second of the signal no process of the run is left (pecan, the pecans it started, the program
// and what the program forked), pecan ends by that signal, and an interrupted trace is readable.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "e2e_support.h"
#include "workflow/program_lookup.h"

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// Every process whose environment holds `marker` (NAME=VALUE) and that has not ended: every
// process of one run, since each inherits it, even one whose parent is gone.
std::vector<pid_t> ProcessesOfRun(const std::string& marker) {
  std::vector<pid_t> found;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream environ_file(entry.path() / "environ", std::ios::binary);
    std::string variable;
    bool marked = false;
    while (!marked && std::getline(environ_file, variable, '\0')) marked = variable == marker;
    if (!marked) continue;
    std::ifstream stat_file(entry.path() / "stat");
    std::string stat;
    std::getline(stat_file, stat);
    const size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') continue;
    found.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return found;
}

std::string Command(pid_t pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return std::to_string(pid) + " " + name;
}

// One run of pecan with `arguments`, its output in `log`, started with a marker in its
// environment (and the signals at their defaults, whatever ctest's were).
class MarkedRun {
 public:
  MarkedRun(const std::vector<std::string>& arguments, const std::string& log,
            std::map<std::string, std::string> environment) {
    static int runs = 0;
    marker_ = "PECAN_E2E_SIGNAL_RUN=" + std::to_string(::getpid()) + "-" + std::to_string(++runs);
    environment[marker_.substr(0, marker_.find('='))] = marker_.substr(marker_.find('=') + 1);
    std::vector<std::string> argv{kPecanBinary};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<std::string> envp = pecan::workflow::MergedEnvironment(environment);
    std::vector<char*> argv_c = pecan::workflow::CStrings(argv);
    std::vector<char*> envp_c = pecan::workflow::CStrings(envp);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, signal_number);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
    const int error =
        posix_spawn(&pid_, argv_c[0], &actions, &attributes, argv_c.data(), envp_c.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (error != 0) throw std::runtime_error("cannot start pecan");
  }
  // A failed test leaves nothing behind.
  ~MarkedRun() {
    for (pid_t pid : ProcessesOfRun(marker_)) ::kill(pid, SIGKILL);
    if (!reaped_) ::waitpid(pid_, &status_, 0);
  }
  MarkedRun(const MarkedRun&) = delete;
  MarkedRun& operator=(const MarkedRun&) = delete;

  pid_t pid() const { return pid_; }
  int status() const { return status_; }
  bool Ended() {
    if (!reaped_ && ::waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
    return reaped_;
  }
  // Polls until pecan has ended and no process of the run is left, at most `bound`; returns
  // what is still there.
  std::vector<pid_t> Survivors(std::chrono::milliseconds bound) {
    const Clock::time_point deadline = Clock::now() + bound;
    for (;;) {
      const bool ended = Ended();
      std::vector<pid_t> left = ProcessesOfRun(marker_);
      if (ended && left.empty()) return left;
      if (Clock::now() >= deadline) {
        if (!ended && left.empty()) left.push_back(pid_);
        return left;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

 private:
  std::string marker_;
  pid_t pid_ = 0;
  int status_ = 0;
  bool reaped_ = false;
};

// Waits until `path` exists (and holds something, when `nonempty`).
bool WaitForFile(const std::string& path, MarkedRun& run, bool nonempty = false) {
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(120);
  while (Clock::now() < deadline) {
    std::error_code error;
    if (fs::exists(path) && (!nonempty || fs::file_size(path, error) > 0)) return true;
    if (run.Ended()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Starts pecan, waits until the program lingers (and `written` holds something, when given),
// sends `signal_number` to pecan alone and checks that within a second nothing of the run is
// left and pecan ended by that signal.
void SignalWhileRunning(const std::string& what, const std::vector<std::string>& arguments,
                        std::map<std::string, std::string> environment, const std::string& dir,
                        int signal_number, const std::string& written = "") {
  const std::string ready = dir + "/lingering";
  fs::remove(ready);
  environment["LINGER_READY"] = ready;
  const std::string log = dir + "/" + std::to_string(signal_number) + ".log";
  MarkedRun run(arguments, log, environment);
  INFO(what << " with " << strsignal(signal_number));
  const bool lingering =
      WaitForFile(ready, run) && (written.empty() || WaitForFile(written, run, true));
  INFO("pecan's output so far:\n" << e2e::ReadText(log));
  REQUIRE(lingering);
  const Clock::time_point sent = Clock::now();
  REQUIRE(::kill(run.pid(), signal_number) == 0);
  // One second, as promised, plus a little for the scheduler of a loaded machine.
  const std::vector<pid_t> left = run.Survivors(std::chrono::milliseconds(1100));
  const double seconds = std::chrono::duration<double>(Clock::now() - sent).count();
  std::string names;
  for (pid_t pid : left) names += " [" + Command(pid) + "]";
  INFO("still running after " << seconds << " s:" << names);
  INFO("pecan's output:\n" << e2e::ReadText(log));
  CHECK(left.empty());
  std::printf("signals: %s, %s: %s after %.3f s\n", what.c_str(), strsignal(signal_number),
              left.empty() ? "nothing left" : "processes left", seconds);
  REQUIRE(run.Ended());
  CHECK(WIFSIGNALED(run.status()));
  CHECK(WTERMSIG(run.status()) == signal_number);
}

}  // namespace

TEST_CASE("SIGINT or SIGTERM to pecan record ends the program, and the trace is complete",
          "[e2e][signals][record]") {
  const std::string dir = e2e::FreshDirectory("signals-record");
  const std::string program = e2e::TestProgram("linger");
  for (int signal_number : {SIGINT, SIGTERM}) {
    const std::string trace = dir + "/" + std::to_string(signal_number) + ".pecan";
    SignalWhileRunning("pecan record",
                       {"record", "--chunk-events", "64", "-o", trace, "--", program}, {}, dir,
                       signal_number);
    e2e::PecanRun stats = e2e::RunPecan({"stats", trace}, dir + "/stats.log");
    // What pecan record and the runtime said (e.g. that the trace writer did not finish).
    INFO("pecan record's output:\n"
         << e2e::ReadText(dir + "/" + std::to_string(signal_number) + ".log"));
    INFO(stats.output);
    CHECK(stats.result.exit_status == 0);
    CHECK(stats.output.find("complete") != std::string::npos);
    CHECK(stats.output.find("truncated") == std::string::npos);
  }
}

// SIGKILL loses what the runtime had not flushed yet (at most its last second), so the signal
// comes once the trace file holds something.
TEST_CASE(
    "A recorded program that ignores the signal is killed, and its trace's chunks stay readable",
    "[e2e][signals][record]") {
  const std::string dir = e2e::FreshDirectory("signals-record-ignored");
  const std::string trace = dir + "/t.pecan";
  SignalWhileRunning(
      "pecan record (program ignores it)",
      {"record", "--chunk-events", "64", "-o", trace, "--", e2e::TestProgram("linger")},
      {{"LINGER_IGNORE", "1"}}, dir, SIGTERM, trace);
  e2e::PecanRun stats = e2e::RunPecan({"stats", trace}, dir + "/stats.log");
  INFO(stats.output);
  CHECK(stats.result.exit_status == 0);
  CHECK(stats.output.find("truncated") != std::string::npos);
}

TEST_CASE("SIGINT or SIGTERM to pecan hunt while it records ends pecan record and the program",
          "[e2e][signals][hunt]") {
  const std::string dir = e2e::FreshDirectory("signals-hunt-record");
  for (int signal_number : {SIGINT, SIGTERM})
    SignalWhileRunning("pecan hunt (recording, the program forked)",
                       {"hunt", "-o", dir + "/out", "--", e2e::TestProgram("linger")},
                       {{"LINGER_WHEN", "record"}, {"LINGER_FORK", "1"}}, dir, signal_number);
}

TEST_CASE("SIGINT or SIGTERM to pecan hunt, replay and triage while replays run ends them all",
          "[e2e][signals][hunt][replay][triage]") {
  const std::string dir = e2e::FreshDirectory("signals-replay");
  const std::string program = e2e::TestProgram("linger");
  // A hunt that runs to its end (the program never lingers) leaves a trace and a clip.
  const std::string out = dir + "/out";
  e2e::PecanRun hunt = e2e::RunPecanIn(dir, {"hunt", "--no-explore", "-o", out, "--", program},
                                       dir + "/hunt.log", {{"LINGER_WHEN", "never"}});
  INFO(hunt.output);
  std::string clip;
  for (const auto& entry : fs::directory_iterator(out + "/clips"))
    if (clip.empty()) clip = entry.path().string();
  REQUIRE(!clip.empty());

  for (int signal_number : {SIGINT, SIGTERM}) {
    SignalWhileRunning("pecan hunt (replaying)", {"hunt", "-o", dir + "/again", "--", program},
                       {{"LINGER_WHEN", "replay"}}, dir, signal_number);
    // Its scratch files (the verdict, the runtime's partial write of it) go with it.
    const std::string scratch = dir + "/tmp-" + std::to_string(signal_number);
    fs::create_directories(scratch);
    SignalWhileRunning("pecan replay", {"replay", clip, "--", program},
                       {{"LINGER_WHEN", "replay"}, {"TMPDIR", scratch}}, dir, signal_number);
    std::string left;
    for (const auto& entry : fs::directory_iterator(scratch)) left += " " + entry.path().string();
    INFO("left in the temporary directory:" << left);
    CHECK(left.empty());
    SignalWhileRunning(
        "pecan triage --replay",
        {"triage", out + "/trace.pecan", "-o", dir + "/triage", "--replay", "--", program},
        {{"LINGER_WHEN", "replay"}}, dir, signal_number);
  }
}
