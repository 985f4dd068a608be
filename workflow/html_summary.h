// Writes the self-contained HTML summary of a triage (or hunt): a sortable table with one row per
// bug (its variants inside), failures first and refuted ones folded away; per bug its code with
// the source around it and each variant's clip as a swimlane picture. Inline CSS and JS only.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "workflow/finding_groups.h"
#include "workflow/finding_summary.h"
#include "workflow/source_excerpt.h"
#include "workflow/swimlane_svg.h"

namespace pecan::workflow {

// A verdict in a few words, as the summary's tables show it ("not replayed", "confirmed", ...).
std::string VerdictText(const SummaryVerdict& verdict);

// `before_findings`: HTML placed between the overview and the bugs (hunt's failures found by
// exploring schedules), already escaped. `source_root`: an absolute directory; source paths
// below it are shown relative to it.
std::string RenderSummaryHtml(const std::string& title, const std::vector<SummaryTrace>& traces,
                              const std::vector<SummaryFinding>& findings,
                              const std::string& before_findings = "",
                              const std::string& source_root = "");

}  // namespace pecan::workflow
