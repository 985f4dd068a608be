// The SARIF 2.1.0 report for code-scanning tools: one result per finding, located at its first
// event, the other events as related locations, one rule per pattern family.
#pragma once

#include <iosfwd>

#include "analyzer/analysis.h"
#include "analyzer/report_events.h"
#include "analyzer/symbolizer.h"
#include "trace_format/trace.h"

namespace pecan {

// Where an event points:
//  - a site with a known file and line: that file (a file:// URI when absolute) and startLine,
//    plus the function as a logical location;
//  - an STD site ("loc N"): the trace file with startLine = the event's index + 1 (its line in
//    the canonical STD text, see STD_FORMAT.md), and "loc N" as a logical location;
//  - a recorded site that could not be symbolized: the module file and the offset as a
//    physicalLocation.address (no line is known).
// Rule ids are the pattern names ("race", "atomicity", "asv", user patterns); the finding id is
// the partial fingerprint "pecanFindingId/v1".
void WriteSarifReport(std::ostream& out, const Trace& trace, const AnalysisResult& result,
                      Symbolizer& symbolizer, const ReportOrigin& origin);

}  // namespace pecan
