// The program checks of `pecan replay`: PATH look-up, and the program's ELF facts
// (workflow/program_file.h) compared with the modules the clip recorded.
#include "cli/replay_program_check.h"

#include <cstdlib>
#include <filesystem>

#include "trace_format/error.h"
#include "workflow/library_runtime.h"
#include "workflow/program_file.h"
#include "workflow/program_lookup.h"

namespace pecan::cli {

using workflow::InspectProgramFile;
using workflow::kRuntimeLibrary;
using workflow::LibraryRuntime;
using workflow::ProgramFile;
using workflow::RequireExecutable;
using workflow::RuntimePreloaded;

namespace {

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

}  // namespace

std::string FindProgram(const std::string& program) {
  return RequireExecutable(program, "replay: ");
}

void CheckProgramMatchesClip(const std::string& clip_path, const std::string& given,
                             const std::string& program, const proto::Clip& clip) {
  const proto::Module* recorded = RecordedExecutable(clip);
  // A recorded run lists at least its executable; a trace imported from STD text lists no
  // module, and its sites are line numbers, not code a replay could meet.
  if (recorded == nullptr) {
    throw PecanError("replay: " + clip_path +
                     " was made from an imported STD trace; only clips of recorded runs can be "
                     "replayed");
  }
  ProgramFile facts = InspectProgramFile(program);
  if (facts.is_elf && !facts.loads_runtime && !RuntimePreloaded() &&
      LibraryRuntime(program, facts).empty()) {
    throw PecanError("replay: " + given + " does not load " + kRuntimeLibrary +
                     ": build it with pecan-cc / pecan-c++ or pecan_instrument(), as for "
                     "recording");
  }
  if (!recorded->build_id().empty() && !facts.build_id.empty()) {
    if (recorded->build_id() != facts.build_id) {
      throw PecanError("replay: " + clip_path + " was recorded from another build of " +
                       BaseName(recorded->path()) + " (build-id " + Hex(recorded->build_id()) +
                       "); " + program + " has build-id " + Hex(facts.build_id));
    }
    return;
  }
  if (BaseName(recorded->path()) != BaseName(std::filesystem::canonical(program).string())) {
    throw PecanError("replay: " + clip_path + " was recorded from " + recorded->path() + ", not " +
                     program + " (and build-ids cannot tell whether they are the same)");
  }
}

std::vector<std::string> ChangedLibraries(const proto::Clip& clip) {
  std::vector<std::string> changed;
  const proto::Module* executable = RecordedExecutable(clip);
  for (const auto& module : clip.modules()) {
    if (&module == executable || module.build_id().empty()) continue;
    bool used = false;
    for (const auto& site : clip.sites()) used = used || site.module() == module.id();
    if (!used || !std::filesystem::exists(module.path())) continue;
    ProgramFile facts = InspectProgramFile(module.path());
    if (!facts.build_id.empty() && facts.build_id != module.build_id())
      changed.push_back(module.path());
  }
  return changed;
}

}  // namespace pecan::cli
