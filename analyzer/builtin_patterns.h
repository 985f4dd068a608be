// The built-in pattern families (data race, atomicity violation, atomic-set serializability
// violation), written in the pattern language and parsed like a user's file.
#pragma once

#include <string>
#include <vector>

#include "analyzer/pattern.h"

namespace pecan {

// The text of the built-in patterns (also printed by PATTERNS.md's example section).
const std::string& BuiltinPatternText();

// Resolves AnalysisOptions::patterns: a comma-separated list of "race", "atomicity", "asv",
// "deadlock", "all", and paths of pattern files (anything else that is not a family name).
// Empty = "all". "deadlock" selects no pattern here (see SelectsDeadlocks). Throws PecanError
// for an unknown family name that is not an existing file.
std::vector<Pattern> SelectPatterns(const std::string& spec);

// Whether the spec asks for lock-order deadlock prediction ("deadlock", "all" or empty).
bool SelectsDeadlocks(const std::string& spec);

}  // namespace pecan
