// JSON forms of the workflow's results: hunt's verdicts.json and triage's summary.json share the
// finding and trace objects written here (documented field by field in docs/workflow.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workflow/finding_summary.h"

namespace pecan::workflow {

nlohmann::json SiteJson(const SummarySite& site);

nlohmann::json VerdictJson(const SummaryVerdict& verdict);

nlohmann::json FindingJson(const SummaryFinding& finding);

nlohmann::json TraceJson(const SummaryTrace& trace);

nlohmann::json FindingsJson(const std::vector<SummaryFinding>& findings);

}  // namespace pecan::workflow
