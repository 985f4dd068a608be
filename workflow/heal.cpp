// `pecan heal REPORT -- PROGRAM [ARGS...]`: runs the program with the runtime in heal mode, which
// serializes the accesses of the races REPORT names through extra locks (AtomRace's healing,
// recorder/heal_sections.h), says how often healing engaged and exits with the program's status.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "trace_format/error.h"
#include "trace_format/signal_name.h"
#include "workflow/foreground_child.h"
#include "workflow/heal.h"
#include "workflow/heal_targets.h"
#include "workflow/library_runtime.h"
#include "workflow/program_file.h"
#include "workflow/program_lookup.h"

namespace pecan::workflow {
namespace {

struct HealStats {
  bool known = false;
  uint64_t engaged = 0;
  uint64_t gave_up = 0;
  uint64_t other = 0;
  std::map<std::string, uint64_t> per_site;  // "module offset" -> count
};

HealStats ReadStats(const std::string& path) {
  HealStats stats;
  std::ifstream in(path);
  if (!in) return stats;
  stats.known = true;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string word;
    fields >> word;
    if (word == "engaged") {
      fields >> stats.engaged;
    } else if (word == "gave_up") {
      fields >> stats.gave_up;
    } else if (word == "other") {
      fields >> stats.other;
    } else if (word == "site") {
      std::string module, offset;
      uint64_t count = 0;
      if (fields >> module >> offset >> count) stats.per_site[module + " " + offset] = count;
    }
  }
  return stats;
}

std::string OffsetText(uint64_t offset) {
  char text[32];
  snprintf(text, sizeof(text), "%llx", static_cast<unsigned long long>(offset));
  return text;
}

// "pecan heal: healing engaged 40000 times at 2 instructions (counter_race.c:15); gave up 0
// times".
std::string Summary(const HealTargets& targets, const HealStats& stats) {
  if (!stats.known)
    return "pecan heal: the program ended without writing its healing counts (killed, or it "
           "left through _exit or exec)";
  size_t instructions = 0;
  std::vector<std::string> places;
  for (const HealSite& site : targets.sites) {
    const auto found = stats.per_site.find(site.module + " " + OffsetText(site.offset));
    if (found == stats.per_site.end() || found->second == 0) continue;
    ++instructions;
    bool seen = false;
    for (const std::string& place : places) seen = seen || place == site.where;
    if (!seen) places.push_back(site.where);
  }
  std::string text = "pecan heal: healing engaged " + std::to_string(stats.engaged) + " times";
  if (instructions > 0) {
    text += " at " + std::to_string(instructions) +
            (instructions == 1 ? " instruction (" : " instructions (");
    for (size_t i = 0; i < places.size(); ++i) text += (i ? ", " : "") + places[i];
    text += ")";
  }
  if (stats.other > 0)
    text += ", " + std::to_string(stats.other) + " of them at other accesses to the same locations";
  text += "; gave up " + std::to_string(stats.gave_up) + " times";
  return text;
}

std::string WhyNotHealable(const std::string& program, const ProgramFile& build,
                           const std::string& library_runtime) {
  if (!build.is_elf || build.loads_runtime || RuntimePreloaded() || !library_runtime.empty())
    return {};
  if (build.loads_tsan_runtime)
    return program +
           " was linked with ThreadSanitizer's runtime, not pecan's: relink it with pecan-cc / "
           "pecan-c++ or pecan_instrument()";
  return program + " was not built for pecan (it does not load " + kRuntimeLibrary +
         "): build it with pecan-cc / pecan-c++ or pecan_instrument()";
}

// A private directory for the heal file and the counts, removed when the run is over.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* base = getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base ? base : "/tmp") + "/pecan-heal-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr)
      throw PecanError("heal: cannot create a temporary directory in " + pattern + ": " +
                       std::strerror(errno));
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

int RunHeal(HealOptions options) {
  // With positionals_at_end, CLI11 2.1 keeps a "--" that follows the report as the first word.
  if (!options.command.empty() && options.command.front() == "--")
    options.command.erase(options.command.begin());
  if (options.command.empty())
    throw PecanError("heal: no program given (pecan heal REPORT -- PROGRAM [ARGS...])");
  const HealTargets targets = ReadHealTargets(options.report, options.race_id);
  const std::string program = RequireExecutable(options.command.front(), "heal: ");
  const ProgramFile build = InspectProgramFile(program);
  const std::string library_runtime = LibraryRuntime(program, build);
  if (const std::string reason = WhyNotHealable(options.command.front(), build, library_runtime);
      !reason.empty())
    throw PecanError("heal: " + reason);

  ScratchDirectory scratch;
  const std::string heal_file = scratch.path() + "/heal.txt";
  const std::string stats_file = scratch.path() + "/stats.txt";
  {
    std::ofstream out(heal_file);
    out << HealFileText(targets);
    if (!out) throw PecanError("heal: cannot write " + heal_file);
  }
  std::map<std::string, std::string> environment{
      {"PECAN_MODE", "heal"}, {"PECAN_HEAL", heal_file}, {"PECAN_HEAL_STATS", stats_file}};
  if (options.quiet) environment["PECAN_QUIET"] = "1";
  PreloadLibraryRuntime(library_runtime, environment);
  int status = 0;
  {
    ForegroundChild child(program, options.command, MergedEnvironment(environment, {"PECAN_TRACE"}),
                          "heal: ");
    status = child.Wait(0).status;
  }
  if (!options.quiet) std::cerr << Summary(targets, ReadStats(stats_file)) << "\n";
  if (WIFSIGNALED(status)) {
    const int signal_number = WTERMSIG(status);
    if (!options.quiet)
      std::cerr << "pecan: " << options.command.front() << " was killed by "
                << SignalName(signal_number) << " (" << strsignal(signal_number) << ")\n";
    return 128 + signal_number;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace pecan::workflow
