// Addresses in the running process of code or data named as module + offset (the trace's and
// the clip's way of naming a site), for the monitors that read sites from a file.
#pragma once

#include <cstdint>
#include <string>

namespace pecan::rt {

// The address of `offset` in the loaded module whose file is `module_path` (compared after
// resolving symbolic links; the main executable as /proc/self/exe names it), or 0 when no
// such module is loaded now.
uint64_t ResolveModuleOffset(const std::string& module_path, uint64_t offset);

}  // namespace pecan::rt
