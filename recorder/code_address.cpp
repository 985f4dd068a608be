// Module + offset to address with dl_iterate_phdr (see code_address.h).
#include "recorder/code_address.h"

#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

namespace pecan::rt {
namespace {

std::string CanonicalPath(const char* path) {
  char resolved[PATH_MAX];
  return realpath(path, resolved) != nullptr ? std::string(resolved) : std::string(path);
}

struct Search {
  std::string wanted;
  std::string executable;
  uint64_t load_address = 0;
  bool found = false;
};

int VisitModule(dl_phdr_info* info, size_t, void* data) {
  Search& search = *static_cast<Search*>(data);
  const bool is_executable = info->dlpi_name == nullptr || info->dlpi_name[0] == '\0';
  const std::string path = is_executable ? search.executable : CanonicalPath(info->dlpi_name);
  if (path != search.wanted) return 0;
  search.load_address = info->dlpi_addr;
  search.found = true;
  return 1;
}

}  // namespace

uint64_t ResolveModuleOffset(const std::string& module_path, uint64_t offset) {
  Search search;
  search.wanted = CanonicalPath(module_path.c_str());
  search.executable = CanonicalPath("/proc/self/exe");
  dl_iterate_phdr(VisitModule, &search);
  return search.found ? search.load_address + offset : 0;
}

}  // namespace pecan::rt
