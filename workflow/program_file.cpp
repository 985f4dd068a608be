// InspectProgramFile: one pass over the ELF sections with libelf — DT_NEEDED entries, the symbol
// tables (for __tsan_init) and the GNU build-id note.
#include "workflow/program_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace pecan::workflow {
namespace {

void ReadNeeded(Elf* elf, const GElf_Shdr& header, Elf_Data* data, ProgramFile& file) {
  for (size_t i = 0; i < header.sh_size / header.sh_entsize; ++i) {
    GElf_Dyn entry;
    if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr || entry.d_tag != DT_NEEDED)
      continue;
    const char* name = elf_strptr(elf, header.sh_link, entry.d_un.d_val);
    if (name == nullptr) continue;
    file.loads_runtime |= std::strcmp(name, kRuntimeLibrary) == 0;
    file.loads_tsan_runtime |= std::strncmp(name, "libtsan.so", 10) == 0;
  }
}

void ReadSymbols(Elf* elf, const GElf_Shdr& header, Elf_Data* data, ProgramFile& file) {
  for (size_t i = 0; i < header.sh_size / header.sh_entsize && !file.calls_instrumentation; ++i) {
    GElf_Sym symbol;
    if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) continue;
    const char* name = elf_strptr(elf, header.sh_link, symbol.st_name);
    file.calls_instrumentation = name != nullptr && std::strcmp(name, "__tsan_init") == 0;
  }
}

void ReadBuildId(Elf_Data* data, ProgramFile& file) {
  GElf_Nhdr note;
  size_t offset = 0, name_offset = 0, desc_offset = 0;
  while ((offset = gelf_getnote(data, offset, &note, &name_offset, &desc_offset)) > 0) {
    const char* bytes = static_cast<const char*>(data->d_buf);
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
        std::memcmp(bytes + name_offset, "GNU", 4) == 0) {
      file.build_id.assign(bytes + desc_offset, note.n_descsz);
      return;
    }
  }
}

}  // namespace

ProgramFile InspectProgramFile(const std::string& path) {
  ProgramFile file;
  elf_version(EV_CURRENT);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return file;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF) {
    file.is_elf = true;
    for (Elf_Scn* section = elf_nextscn(elf, nullptr); section;
         section = elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == nullptr) continue;
      Elf_Data* data = elf_getdata(section, nullptr);
      if (data == nullptr) continue;
      if (header.sh_type == SHT_NOTE) {
        if (file.build_id.empty()) ReadBuildId(data, file);
      } else if (header.sh_entsize == 0) {
        continue;
      } else if (header.sh_type == SHT_DYNAMIC) {
        ReadNeeded(elf, header, data, file);
      } else if (header.sh_type == SHT_DYNSYM || header.sh_type == SHT_SYMTAB) {
        ReadSymbols(elf, header, data, file);
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  ::close(fd);
  return file;
}

bool RuntimePreloaded() {
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && std::strstr(preload, kRuntimeLibrary) != nullptr;
}

}  // namespace pecan::workflow
