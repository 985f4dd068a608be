// The program checks of `pecan replay`: PATH look-up, and the ELF facts (DT_NEEDED, GNU build-id)
// read with libelf, compared with the modules the clip recorded.
#include "cli/replay_program_check.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "trace_format/error.h"

namespace pecan::cli {
namespace {

constexpr const char* kRuntimeLibrary = "libpecan_rt.so";

bool IsExecutableFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
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

}  // namespace

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
  ElfFacts facts = InspectElf(program);
  if (facts.is_elf && !facts.loads_runtime && std::getenv("LD_PRELOAD") == nullptr) {
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
    ElfFacts facts = InspectElf(module.path());
    if (!facts.build_id.empty() && facts.build_id != module.build_id())
      changed.push_back(module.path());
  }
  return changed;
}

}  // namespace pecan::cli
