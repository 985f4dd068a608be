// Module discovery with dl_iterate_phdr: PT_LOAD segments give the address ranges, the PT_NOTE
// segments the GNU build-id. Runs in the writer thread only.
#include "recorder/module_map.h"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace pecan::rt {
namespace {

struct ScannedObject {
  std::string path;
  uint64_t load_address = 0;
  std::string build_id;
  std::vector<std::pair<uint64_t, uint64_t>> segments;  // absolute [begin, end)
};

std::string ExecutablePath() {
  char path[4096];
  ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return "";
  return std::string(path, static_cast<size_t>(length));
}

std::string ReadBuildId(const dl_phdr_info* info, int header_index) {
  const ElfW(Phdr)& header = info->dlpi_phdr[header_index];
  const char* note = reinterpret_cast<const char*>(info->dlpi_addr + header.p_vaddr);
  const char* end = note + header.p_memsz;
  auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
  while (note + sizeof(ElfW(Nhdr)) <= end) {
    const auto* nhdr = reinterpret_cast<const ElfW(Nhdr)*>(note);
    const char* name = note + sizeof(ElfW(Nhdr));
    const char* desc = name + align4(nhdr->n_namesz);
    const char* next = desc + align4(nhdr->n_descsz);
    if (next > end) break;
    if (nhdr->n_type == NT_GNU_BUILD_ID && nhdr->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
      return std::string(desc, nhdr->n_descsz);
    }
    note = next;
  }
  return "";
}

int CollectObject(dl_phdr_info* info, size_t, void* data) {
  auto* objects = static_cast<std::vector<ScannedObject>*>(data);
  ScannedObject object;
  const char* name = info->dlpi_name;
  if (name == nullptr || name[0] == '\0') {
    if (!objects->empty()) return 0;  // only the first unnamed object is the executable
    object.path = ExecutablePath();
  } else if (name[0] != '/') {
    return 0;  // the vDSO and other objects without a file
  } else {
    object.path = name;
  }
  object.load_address = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type == PT_LOAD) {
      uint64_t begin = info->dlpi_addr + header.p_vaddr;
      object.segments.emplace_back(begin, begin + header.p_memsz);
    } else if (header.p_type == PT_NOTE && object.build_id.empty()) {
      object.build_id = ReadBuildId(info, i);
    }
  }
  objects->push_back(std::move(object));
  return 0;
}

}  // namespace

std::vector<const LoadedModule*> ModuleMap::Refresh() {
  std::vector<ScannedObject> objects;
  dl_iterate_phdr(CollectObject, &objects);

  std::vector<const LoadedModule*> added;
  std::vector<Range> ranges;
  for (ScannedObject& object : objects) {
    auto known = std::find_if(modules_.begin(), modules_.end(), [&](const auto& module) {
      return module->load_address == object.load_address && module->path == object.path;
    });
    const LoadedModule* module = nullptr;
    if (known != modules_.end()) {
      module = known->get();
    } else {
      auto fresh = std::make_unique<LoadedModule>();
      fresh->id = static_cast<uint32_t>(modules_.size() + 1);
      fresh->path = std::move(object.path);
      fresh->load_address = object.load_address;
      fresh->build_id = std::move(object.build_id);
      module = fresh.get();
      added.push_back(module);
      modules_.push_back(std::move(fresh));
    }
    for (const auto& [begin, end] : object.segments) ranges.push_back(Range{begin, end, module});
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  ranges_ = std::move(ranges);
  return added;
}

const LoadedModule* ModuleMap::Find(uint64_t address) const {
  auto after = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                                [](uint64_t a, const Range& range) { return a < range.begin; });
  if (after == ranges_.begin()) return nullptr;
  const Range& range = *(after - 1);
  return address < range.end ? range.module : nullptr;
}

}  // namespace pecan::rt
