// Finding the program a command runs and building its argv/environment for posix_spawn: the
// PATH look-up every command makes before it starts work, in one place.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "trace_format/error.h"

extern char** environ;

namespace pecan::workflow {

// Where `program` would be started from, as posix_spawnp looks it up: itself when it holds a
// slash, else the first directory of PATH with an executable file of that name; "" when none.
std::string FindExecutable(const std::string& program);

// FindExecutable's answer, or a PecanError "<context><program>: no such executable file" (or
// ": not found in PATH"): the check a command makes before it starts work.
std::string RequireExecutable(const std::string& program, const std::string& context);

// This process's environment with `overrides` set (replacing variables of the same name) and
// the variables named in `unset` left out.
std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& overrides,
                                           const std::vector<std::string>& unset = {});

// The null-terminated char* array posix_spawn wants, pointing into `strings`.
std::vector<char*> CStrings(std::vector<std::string>& strings);

}  // namespace pecan::workflow
