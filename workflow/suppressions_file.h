// --suppressions FILE for analyze, hunt and triage: reads the file once, before any work, and
// says on stderr which of its lines pecan skips (analyzer/suppressions.h).
#pragma once

#include <memory>
#include <string>

#include "analyzer/suppressions.h"

namespace pecan::workflow {

// Null for an empty path. Throws PecanError("<command>: FILE:LINE: ...") for a bad file.
std::shared_ptr<const Suppressions> LoadSuppressions(const std::string& path,
                                                     const std::string& command);

// A short digest of the file's rules (empty for none), so parts of one triage can be checked to
// have used the same.
std::string SuppressionsDigest(const Suppressions* suppressions);

// The option's help, the same for every command.
inline constexpr const char* kSuppressionsHelp =
    "Hide findings a ThreadSanitizer-style suppressions file names: lines TYPE:PATTERN, TYPE "
    "race, atomicity, asv, deadlock or a user pattern; PATTERN (* wildcards, ^ $ anchors) "
    "matched against each event's function, source file and module";

}  // namespace pecan::workflow
