// Library mode: a program not linked with libpecan_rt.so whose libraries are (an instrumented
// shared library in a plain host). The commands that run it preload that very runtime.
#pragma once

#include <map>
#include <string>

#include "workflow/program_file.h"

namespace pecan::workflow {

// The libpecan_rt.so that `program` loads through its libraries — its DT_NEEDED closure as the
// dynamic loader resolves it (`ld.so --list` with this environment) — when the executable does
// not load the runtime itself and LD_PRELOAD does not bring it; "" otherwise.
std::string LibraryRuntime(const std::string& program, const ProgramFile& facts);

// Adds LD_PRELOAD=<runtime>[:<the LD_PRELOAD already set>] to `environment` when `runtime` is not
// empty: the runtime must come before libc in the lookup order to see the program's threads,
// locks and allocations, and the very file the library resolves to is preloaded, so one copy of
// the runtime is loaded, not two.
void PreloadLibraryRuntime(const std::string& runtime,
                           std::map<std::string, std::string>& environment);

}  // namespace pecan::workflow
