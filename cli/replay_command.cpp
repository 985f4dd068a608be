// `pecan replay`: runs a program under the replay runtime so it follows a clip, bounds the run in
// time, and turns the runtime's verdict file plus the program's end into one verdict line/JSON.
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/symbolizer.h"
#include "cli/command.h"
#include "proto/clip.pb.h"
#include "proto/report.pb.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/event_kind.h"
#include "trace_format/trace.h"

extern char** environ;

namespace pecan::cli {
namespace {

constexpr const char* kRuntimeLibrary = "libpecan_rt.so";
// The runtime ends a stopped replay with this status (replayer/replay_session.h).
constexpr int kReplayStoppedExitStatus = 86;
// The parent's bound is the runtime's plus this, so the runtime normally reports first.
constexpr double kParentBoundMarginSeconds = 2.0;

constexpr const char* kReplayFooter = R"(What replay needs from you:
  Run the SAME program binary with the SAME arguments (and inputs) as the recorded run: the clip
  is a schedule of that run's events. pecan checks the binary's build-id against the clip and
  refuses another build; arguments, input files and environment are your responsibility.

Verdicts (exit status):
  hatched     (0)  the predicted anomaly's events ran in the predicted order on one location:
                   the anomaly is real. The program then runs on freely; if it crashes, fails an
                   assertion or exits non-zero, the verdict says so (`failure`).
  infeasible  (3)  the prediction is refuted: a thread took another path (divergence), every
                   thread blocked (deadlock), or the time bound passed. The reason says which.
  errors      (2)  missing or damaged clip, program not found, a different build, a program not
                   built with pecan-cc / pecan-c++ / pecan_instrument().

--json prints one object: verdict, failure (null or "assertion" / "crashed" / "exit" /
"timeout"), failure_message, reason, steps_executed, steps_total, finding_id, pattern, variant,
anomaly (the events: thread, kind, site), exit_status, signal, signal_name, seconds.

--gdb starts the program under gdb, stopped at pecan_anomaly_formed(): the moment the anomaly's
last event is about to execute, with the program's frame selected. `continue` lets it run on.

The runtime reads PECAN_MODE=replay, PECAN_CLIP, PECAN_VERDICT, PECAN_REPLAY_TIMEOUT (seconds
for the scheduled part, 0 = none) and PECAN_REPLAY_RACE_ORDER; `pecan replay` sets them.)";

struct ReplayCliOptions {
  std::string clip_path;
  double timeout_seconds = 30;
  bool json = false;
  bool gdb = false;
  bool quiet = false;
  std::string race_order = "reversed";
  std::vector<std::string> command;
};

// ---------------------------------------------------------------------------------------------
// The program: where it is, whether it runs pecan's runtime, and which build it is.

bool IsExecutableFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

std::string FindProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (!IsExecutableFile(program))
      throw PecanError("replay: " + program + ": no such executable file");
    return program;
  }
  const char* path = std::getenv("PATH");
  std::string directories = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= directories.size()) {
    size_t end = directories.find(':', start);
    if (end == std::string::npos) end = directories.size();
    std::string directory = directories.substr(start, end - start);
    std::string candidate = (directory.empty() ? "." : directory) + "/" + program;
    if (IsExecutableFile(candidate)) return candidate;
    start = end + 1;
  }
  throw PecanError("replay: " + program + ": not found in PATH");
}

struct ElfFacts {
  bool is_elf = false;
  bool loads_runtime = false;  // DT_NEEDED names libpecan_rt.so
  std::string build_id;        // raw bytes of the GNU build-id note
};

ElfFacts InspectElf(const std::string& path) {
  ElfFacts facts;
  elf_version(EV_CURRENT);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return facts;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF) {
    facts.is_elf = true;
    for (Elf_Scn* section = elf_nextscn(elf, nullptr); section;
         section = elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == nullptr) continue;
      Elf_Data* data = elf_getdata(section, nullptr);
      if (data == nullptr) continue;
      if (header.sh_type == SHT_DYNAMIC && header.sh_entsize != 0) {
        for (size_t i = 0; i < header.sh_size / header.sh_entsize; ++i) {
          GElf_Dyn entry;
          if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr || entry.d_tag != DT_NEEDED)
            continue;
          const char* name = elf_strptr(elf, header.sh_link, entry.d_un.d_val);
          facts.loads_runtime |= name != nullptr && std::strcmp(name, kRuntimeLibrary) == 0;
        }
      } else if (header.sh_type == SHT_NOTE && facts.build_id.empty()) {
        GElf_Nhdr note;
        size_t offset = 0, name_offset = 0, desc_offset = 0;
        while ((offset = gelf_getnote(data, offset, &note, &name_offset, &desc_offset)) > 0) {
          const char* bytes = static_cast<const char*>(data->d_buf);
          if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
              std::memcmp(bytes + name_offset, "GNU", 4) == 0) {
            facts.build_id.assign(bytes + desc_offset, note.n_descsz);
            break;
          }
        }
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  return facts;
}

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string text;
  for (unsigned char c : bytes) {
    text += digits[c >> 4];
    text += digits[c & 15];
  }
  return text;
}

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename();
}

// The clip's module for the recorded executable: the one named like the recorded program, else
// the first (the recorder lists the executable first).
const proto::Module* RecordedExecutable(const proto::Clip& clip) {
  for (const auto& module : clip.modules())
    if (module.path() == clip.program()) return &module;
  return clip.modules_size() > 0 ? &clip.modules(0) : nullptr;
}

// Refuses a binary that is not the recorded one, and one that cannot replay at all.
void CheckProgramMatchesClip(const ReplayCliOptions& options, const std::string& program,
                             const proto::Clip& clip) {
  ElfFacts facts = InspectElf(program);
  if (facts.is_elf && !facts.loads_runtime && std::getenv("LD_PRELOAD") == nullptr) {
    throw PecanError("replay: " + options.command.front() + " does not load " + kRuntimeLibrary +
                     ": build it with pecan-cc / pecan-c++ or pecan_instrument(), as for "
                     "recording");
  }
  const proto::Module* recorded = RecordedExecutable(clip);
  if (recorded == nullptr) return;
  if (!recorded->build_id().empty() && !facts.build_id.empty()) {
    if (recorded->build_id() != facts.build_id) {
      throw PecanError("replay: " + options.clip_path + " was recorded from another build of " +
                       BaseName(recorded->path()) + " (build-id " + Hex(recorded->build_id()) +
                       "); " + program + " has build-id " + Hex(facts.build_id));
    }
    return;
  }
  if (BaseName(recorded->path()) != BaseName(std::filesystem::canonical(program).string())) {
    throw PecanError("replay: " + options.clip_path + " was recorded from " + recorded->path() +
                     ", not " + program + " (and build-ids cannot tell whether they are the same)");
  }
}

// Libraries the clip's sites live in that have changed on disk since the recording: replay of
// steps in them would diverge, so the user hears about it first.
std::vector<std::string> ChangedLibraries(const proto::Clip& clip) {
  std::vector<std::string> changed;
  const proto::Module* executable = RecordedExecutable(clip);
  for (const auto& module : clip.modules()) {
    if (&module == executable || module.build_id().empty()) continue;
    bool used = false;
    for (const auto& site : clip.sites()) used = used || site.module() == module.id();
    if (!used || !std::filesystem::exists(module.path())) continue;
    ElfFacts facts = InspectElf(module.path());
    if (!facts.build_id.empty() && facts.build_id != module.build_id())
      changed.push_back(module.path());
  }
  return changed;
}

// ---------------------------------------------------------------------------------------------
// Running the program.

std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> result;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string text(*entry);
    if (overrides.count(text.substr(0, text.find('='))) == 0) result.push_back(std::move(text));
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

struct ChildEnd {
  bool exited = false;
  int exit_status = 0;
  int signal = 0;
  bool timed_out = false;  // killed by us at the bound
  double seconds = 0;
};

// Runs argv with the environment in our process group (the terminal stays the program's), and
// kills it when `bound_seconds` (> 0) passed.
ChildEnd RunBounded(const std::string& executable, std::vector<std::string> argv,
                    std::vector<std::string> environment, double bound_seconds) {
  std::vector<char*> argv_c = CStrings(argv);
  std::vector<char*> environment_c = CStrings(environment);
  struct sigaction ignore {};
  struct sigaction old_int {};
  struct sigaction old_quit {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGINT, &ignore, &old_int);  // Ctrl-C is for the program; we report after it
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);
  std::cout.flush();
  std::cerr.flush();

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int error = posix_spawnp(&pid, executable.c_str(), nullptr, &attributes, argv_c.data(),
                           environment_c.data());
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
    throw PecanError("replay: cannot run " + executable + ": " + std::strerror(error));
  }
  ChildEnd end;
  int status = 0;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    pid_t done = ::waitpid(pid, &status, bound_seconds > 0 ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (bound_seconds <= 0) continue;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > bound_seconds && !end.timed_out) {
      end.timed_out = true;
      ::kill(pid, SIGKILL);
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(20)) pause *= 2;
  }
  end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGQUIT, &old_quit, nullptr);
  if (WIFEXITED(status)) {
    end.exited = true;
    end.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    end.signal = WTERMSIG(status);
  }
  return end;
}

std::string TemporaryVerdictPath() {
  std::string pattern = (std::filesystem::temp_directory_path() / "pecan-verdict-XXXXXX").string();
  int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    throw PecanError("replay: cannot create a temporary file: " +
                     std::string(std::strerror(errno)));
  ::close(fd);
  ::unlink(pattern.c_str());  // the runtime creates it; absence means "no verdict written"
  return pattern;
}

std::optional<proto::Verdict> ReadVerdict(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  proto::Verdict verdict;
  if (!verdict.ParseFromString(bytes.str())) return std::nullopt;
  return verdict;
}

// ---------------------------------------------------------------------------------------------
// Describing the clip's anomaly with source locations.

struct AnomalyEventText {
  std::string thread;
  std::string kind;
  std::string site;
};

std::vector<AnomalyEventText> DescribeAnomaly(const proto::Clip& clip) {
  Trace tables;
  for (const auto& module : clip.modules())
    tables.modules.push_back(
        {module.id(), module.path(), module.load_address(), module.build_id()});
  for (const auto& site : clip.sites()) {
    if (site.id() >= tables.sites.size()) tables.sites.resize(site.id() + 1);
    tables.sites[site.id()] = {site.module(), site.offset()};
  }
  std::map<uint32_t, std::string> thread_names;
  for (const auto& thread : clip.threads())
    thread_names[thread.id()] =
        thread.name().empty() ? "T" + std::to_string(thread.id()) : thread.name();
  Symbolizer symbolizer(tables);
  std::vector<AnomalyEventText> events;
  for (const auto& event : clip.finding().events()) {
    AnomalyEventText text;
    auto name = thread_names.find(event.thread());
    text.thread = name != thread_names.end() ? name->second : "T" + std::to_string(event.thread());
    text.kind = std::string(EventKindName(static_cast<EventKind>(event.kind())));
    text.site = event.site() < tables.sites.size() ? symbolizer.Describe(event.site()) : "?";
    if (auto variable = symbolizer.NameOfAddress(event.address());
        variable && IsAccess(static_cast<EventKind>(event.kind())))
      text.kind += " " + *variable;
    events.push_back(std::move(text));
  }
  return events;
}

std::string JoinAnomaly(const std::vector<AnomalyEventText>& events) {
  std::string text;
  for (const auto& event : events) {
    if (!text.empty()) text += ", ";
    text += event.thread + " " + event.kind + " at " + event.site;
  }
  return text;
}

// ---------------------------------------------------------------------------------------------
// The verdict: the runtime's file and the program's end, combined.

struct FinalVerdict {
  std::string verdict;  // "hatched", "infeasible", "error"
  std::string failure;  // "", "assertion", "crashed", "exit", "timeout"
  std::string failure_message;
  std::string reason;
  uint64_t steps_executed = 0;
  uint64_t steps_total = 0;
  ChildEnd end;
};

std::string SignalName(int signal_number) {
  const char* abbreviation = sigabbrev_np(signal_number);
  return abbreviation ? std::string("SIG") + abbreviation
                      : "signal " + std::to_string(signal_number);
}

std::string SecondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g s", seconds);
  return text;
}

FinalVerdict Conclude(const std::optional<proto::Verdict>& runtime_verdict, const ChildEnd& end,
                      const ReplayCliOptions& options, const proto::Clip& clip) {
  FinalVerdict result;
  result.end = end;
  result.steps_total = static_cast<uint64_t>(clip.step_kind_size());
  const std::string program = options.command.front();
  if (!runtime_verdict) {
    if (end.timed_out) {
      result.verdict = "infeasible";
      result.reason = "time bound: the run did not end within " +
                      SecondsText(options.timeout_seconds) +
                      " and was killed before the runtime wrote a verdict";
      return result;
    }
    result.verdict = "error";
    if (end.exited && end.exit_status == kReplayStoppedExitStatus) {
      result.reason = "the runtime stopped the replay but left no verdict (is " +
                      std::filesystem::temp_directory_path().string() + " writable?)";
    } else {
      result.reason =
          program + " wrote no verdict: it did not run pecan's runtime in replay " +
          "mode (is it the program built with pecan-cc / pecan-c++, and does it start?)";
    }
    return result;
  }
  const proto::Verdict& v = *runtime_verdict;
  result.steps_executed = v.steps_executed();
  if (v.steps_total() != 0) result.steps_total = v.steps_total();
  result.reason = v.reason();
  switch (v.outcome()) {
    case proto::Verdict::HATCHED: {
      result.verdict = "hatched";
      result.failure = v.failure();
      if (end.timed_out) {
        if (result.failure.empty()) result.failure = "timeout";
        result.failure_message = "the program did not end within " +
                                 SecondsText(options.timeout_seconds) +
                                 " after the anomaly formed (killed)";
      } else if (end.signal != 0) {
        if (result.failure.empty()) result.failure = "crashed";
        if (result.failure == "assertion") {
          std::string reason = v.reason();
          size_t then = reason.find("; then ");
          result.failure_message =
              then == std::string::npos ? "assertion failed" : reason.substr(then + 7);
          if (then != std::string::npos) result.reason = reason.substr(0, then);
        } else {
          result.failure_message = "the program died of " + SignalName(end.signal);
        }
      } else if (end.exited && end.exit_status != 0) {
        if (result.failure.empty() || result.failure == "exit") result.failure = "exit";
        result.failure_message =
            "the program exited with status " + std::to_string(end.exit_status);
      } else if (!result.failure.empty()) {
        result.failure_message = "the program reported " + result.failure;
      }
      return result;
    }
    case proto::Verdict::INFEASIBLE:
      result.verdict = "infeasible";
      return result;
    case proto::Verdict::ERROR:
      result.verdict = "error";
      return result;
    default:
      break;
  }
  // The runtime started but never concluded: the process ended (or was killed) mid-schedule.
  result.verdict = "infeasible";
  if (end.timed_out) {
    result.reason = "time bound: the run did not end within " +
                    SecondsText(options.timeout_seconds) + " and was killed";
  } else if (end.signal != 0) {
    result.reason = "program failed: the program died of " + SignalName(end.signal) +
                    " before the anomaly formed";
  } else {
    result.reason = "program exited: the program exited with status " +
                    std::to_string(end.exit_status) + " before the schedule ended";
  }
  return result;
}

int ExitStatusFor(const FinalVerdict& verdict) {
  if (verdict.verdict == "hatched") return 0;
  if (verdict.verdict == "infeasible") return 3;
  return 2;
}

void PrintJson(const FinalVerdict& verdict, const proto::Clip& clip,
               const std::vector<AnomalyEventText>& anomaly, const ReplayCliOptions& options) {
  nlohmann::json json;
  json["verdict"] = verdict.verdict;
  json["failure"] =
      verdict.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(verdict.failure);
  json["failure_message"] = verdict.failure_message;
  json["reason"] = verdict.reason;
  json["steps_executed"] = verdict.steps_executed;
  json["steps_total"] = verdict.steps_total;
  json["finding_id"] = clip.finding().id();
  json["pattern"] = clip.finding().pattern();
  json["variant"] = clip.finding().variant();
  nlohmann::json events = nlohmann::json::array();
  for (const auto& event : anomaly)
    events.push_back({{"thread", event.thread}, {"kind", event.kind}, {"site", event.site}});
  json["anomaly"] = events;
  json["exit_status"] =
      verdict.end.exited ? nlohmann::json(verdict.end.exit_status) : nlohmann::json(nullptr);
  json["signal"] =
      verdict.end.signal != 0 ? nlohmann::json(verdict.end.signal) : nlohmann::json(nullptr);
  json["signal_name"] = verdict.end.signal != 0 ? nlohmann::json(SignalName(verdict.end.signal))
                                                : nlohmann::json(nullptr);
  json["timed_out"] = verdict.end.timed_out;
  json["seconds"] = verdict.end.seconds;
  json["clip"] = options.clip_path;
  std::cout << json.dump() << std::endl;
}

void PrintLine(const FinalVerdict& verdict, const proto::Clip& clip,
               const std::vector<AnomalyEventText>& anomaly) {
  std::string what = clip.finding().pattern();
  if (!clip.finding().variant().empty()) what += " " + clip.finding().variant();
  std::string line = "pecan: " + verdict.verdict + ": " + what + " [" + clip.finding().id() + "] " +
                     JoinAnomaly(anomaly);
  if (anomaly.empty()) {  // a clip of a whole run (`pecan clips --recorded`): no anomaly to hatch
    line = "pecan: " + std::string(verdict.verdict == "hatched" ? "followed" : verdict.verdict) +
           ": " + what + " run [" + clip.finding().id() + "]";
  }
  if (verdict.verdict == "hatched") {
    line += " (" + std::to_string(verdict.steps_executed) + "/" +
            std::to_string(verdict.steps_total) + " steps)";
    if (!verdict.failure.empty())
      line += "; then " + verdict.failure + ": " + verdict.failure_message;
  } else {
    line += " -- " + verdict.reason + " (" + std::to_string(verdict.steps_executed) + "/" +
            std::to_string(verdict.steps_total) + " steps)";
  }
  std::cout << line << std::endl;
}

// ---------------------------------------------------------------------------------------------
// gdb.

std::string GdbQuoted(const std::string& text) {
  std::string quoted;
  for (char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    if (c == '%') quoted += '%';
    quoted += c;
  }
  return quoted;
}

std::string WriteGdbScript(const std::vector<AnomalyEventText>& anomaly) {
  std::string path = TemporaryVerdictPath() + ".gdb";
  std::ofstream script(path);
  // The anomaly forms when its last event is about to run, or, for a race, when the first
  // access is about to run with the second one's thread already stopped at it.
  std::string events;
  for (const AnomalyEventText& event : anomaly)
    events += "\\n  " + GdbQuoted(event.thread + " " + event.kind + " at " + event.site);
  if (events.empty()) events = "\\n  (the clip names no events)";
  script << "set pagination off\n"
            "set startup-with-shell off\n"
            "set breakpoint pending on\n"
            "python\n"
            "import gdb\n"
            "def pecan_select_program_frame():\n"
            "    frame = gdb.newest_frame()\n"
            "    while frame is not None:\n"
            "        library = gdb.solib_name(frame.pc())\n"
            "        if library is None or 'libpecan_rt' not in library:\n"
            "            frame.select()\n"
            "            return\n"
            "        frame = frame.older()\n"
            "end\n"
            "break pecan_anomaly_formed\n"
            "commands\n"
            "silent\n"
         << "printf \"\\npecan: the anomaly formed, its events in this order:" << events
         << "\\npecan: stopped before the last access that completes it runs; `continue` lets "
            "the program run on\\n\"\n"
            "python pecan_select_program_frame()\n"
            "frame\n"
            "end\n"
            "run\n";
  return path;
}

// ---------------------------------------------------------------------------------------------

int RunReplay(ReplayCliOptions options) {
  // With positionals_at_end, CLI11 2.1 keeps a "--" that follows the clip as the first word.
  if (!options.command.empty() && options.command.front() == "--")
    options.command.erase(options.command.begin());
  if (options.command.empty())
    throw PecanError("replay: no program given (pecan replay CLIP -- PROGRAM [ARGS...])");
  proto::Clip clip = ReadClipFile(options.clip_path);
  const std::string program = FindProgram(options.command.front());
  CheckProgramMatchesClip(options, program, clip);
  if (!options.quiet) {
    for (const auto& library : ChangedLibraries(clip))
      std::cerr << "pecan: warning: " << library
                << " changed since the recording; steps in it may diverge\n";
  }
  std::vector<AnomalyEventText> anomaly = DescribeAnomaly(clip);

  const std::string verdict_path = TemporaryVerdictPath();
  char runtime_bound[32];
  std::snprintf(runtime_bound, sizeof runtime_bound, "%g",
                options.gdb ? 0.0 : options.timeout_seconds);
  std::map<std::string, std::string> environment{
      {"PECAN_MODE", "replay"},
      {"PECAN_CLIP", std::filesystem::absolute(options.clip_path).string()},
      {"PECAN_VERDICT", verdict_path},
      {"PECAN_REPLAY_TIMEOUT", runtime_bound}};
  if (options.quiet) environment["PECAN_QUIET"] = "1";
  environment["PECAN_REPLAY_RACE_ORDER"] = options.race_order;

  ChildEnd end;
  if (options.gdb) {
    std::vector<AnomalyEventText> in_run_order = anomaly;
    // The runtime runs a race's two accesses in the order the recording did not show.
    if (clip.finding().pattern() == "race" && options.race_order == "reversed" &&
        in_run_order.size() == 2)
      std::swap(in_run_order[0], in_run_order[1]);
    std::string script = WriteGdbScript(in_run_order);
    std::vector<std::string> argv{"gdb", "-q", "-x", script, "--args", program};
    argv.insert(argv.end(), options.command.begin() + 1, options.command.end());
    end = RunBounded("gdb", argv, MergedEnvironment(environment), 0);
    ::unlink(script.c_str());
  } else {
    const double bound =
        options.timeout_seconds > 0 ? options.timeout_seconds + kParentBoundMarginSeconds : 0;
    end = RunBounded(program, options.command, MergedEnvironment(environment), bound);
  }
  std::optional<proto::Verdict> runtime_verdict = ReadVerdict(verdict_path);
  ::unlink(verdict_path.c_str());

  FinalVerdict verdict = Conclude(runtime_verdict, end, options, clip);
  if (options.gdb && verdict.verdict != "hatched" && !runtime_verdict) {
    verdict.verdict = "error";
    verdict.reason = "gdb ended before the runtime wrote a verdict";
  }
  if (options.json) {
    PrintJson(verdict, clip, anomaly, options);
  } else if (verdict.verdict == "error") {
    std::cerr << "pecan: error: replay: " << verdict.reason << "\n";
  } else {
    PrintLine(verdict, clip, anomaly);
  }
  return ExitStatusFor(verdict);
}

std::function<int()> SetupReplay(CLI::App& app) {
  auto options = std::make_shared<ReplayCliOptions>();
  app.add_option("clip", options->clip_path, "The clip to follow (written by `pecan clips`)")
      ->required()
      ->type_name("CLIP");
  app.add_option("--timeout", options->timeout_seconds,
                 "Seconds the whole replay may take (default 30); the scheduled part must end "
                 "within it or the prediction counts as infeasible")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", options->json, "Print the verdict as one JSON object");
  app.add_flag("--gdb", options->gdb,
               "Run under gdb and stop where the anomaly forms (no time bound)");
  app.add_option("--race-order", options->race_order,
                 "For a data race: run its two accesses in the order the recording did not show "
                 "(reversed, default: the one that can fail) or as recorded")
      ->check(CLI::IsMember({"reversed", "recorded"}));
  app.add_flag("-q,--quiet", options->quiet, "Silence warnings and the runtime's messages");
  app.add_option("command", options->command,
                 "The recorded program and its recorded arguments, after --")
      ->required()
      ->type_name("PROGRAM [ARGS...]");
  app.footer(kReplayFooter);
  return [options] { return RunReplay(*options); };
}

}  // namespace

PECAN_COMMAND("replay",
              "Re-run a program so it follows a clip and report whether the predicted anomaly "
              "hatched (exit 0) or the prediction is infeasible (exit 3)",
              50, SetupReplay);

}  // namespace pecan::cli
