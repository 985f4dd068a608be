// SARIF 2.1.0 of the workflow's findings (triage's summary.sarif, hunt's report.sarif) for code
// scanning: one result per finding that replay did not refute, located at its first symbolized
// event, the others related; source files relative to a source root where they lie below it.
#pragma once

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace_format/version.h"
#include "workflow/finding_groups.h"
#include "workflow/finding_summary.h"

namespace pecan::workflow {

// The uriBaseId of files below the source root; run.originalUriBaseIds says where it is.
inline constexpr const char* kSourceRootBase = "SRCROOT";

// The directory --source-root names, absolute; the working directory when none was given.
std::string ResolveSourceRoot(const std::string& option);

// The artifactLocation of a source file: relative, with uriBaseId SRCROOT, when it lies below
// `source_root` (an absolute directory); otherwise an absolute file:// URI. A relative file name
// (the compiler's, relative to an unknown directory) is kept as it is.
nlohmann::json SarifArtifactLocation(const std::string& file, const std::string& source_root);

// A SARIF 2.1.0 log of one run of `driver` (with its `rules`) holding `results`, source files
// relative to `source_root` (an absolute directory) under kSourceRootBase.
nlohmann::json SarifLog(const std::string& driver, nlohmann::json rules, nlohmann::json results,
                        const std::string& source_root);

// `source_root`: an absolute directory (hunt and triage pass --source-root, by default the
// working directory). Predictions that replay refuted are left out of the results, since replay
// showed them impossible and code scanning would show them as alerts at any level; their ids
// are listed in the run's properties (refutedByReplay) instead.
nlohmann::json SummarySarif(const std::vector<SummaryFinding>& findings,
                            const std::string& source_root);

}  // namespace pecan::workflow
