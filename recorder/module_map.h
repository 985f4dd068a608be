// The ELF objects loaded in the process (executable, shared libraries, later dlopen()s), found
// with dl_iterate_phdr, so a code address can be stored as module + offset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pecan::rt {

struct LoadedModule {
  uint32_t id = 0;            // dense, from 1 (0 means "no module" in the trace)
  std::string path;           // absolute path of the file (the executable via /proc/self/exe)
  uint64_t load_address = 0;  // dlpi_addr: address = load_address + ELF virtual address
  std::string build_id;       // raw bytes of the GNU build-id note, empty when absent
};

class ModuleMap {
 public:
  // Rescans the loaded objects. Returns the modules not seen before (in load order); their
  // ids are assigned here. Address ranges follow the current mapping (unloaded objects drop out).
  std::vector<const LoadedModule*> Refresh();

  // The module whose loaded segments contain `address`, or nullptr.
  const LoadedModule* Find(uint64_t address) const;

  const std::vector<std::unique_ptr<LoadedModule>>& modules() const { return modules_; }

 private:
  struct Range {
    uint64_t begin = 0;
    uint64_t end = 0;
    const LoadedModule* module = nullptr;
  };
  std::vector<std::unique_ptr<LoadedModule>> modules_;
  std::vector<Range> ranges_;  // sorted by begin
};

}  // namespace pecan::rt
