// The text report, in a compiler's diagnostic style: one "file:line: warning:" per finding,
// then a "note:" per event (who, what, which locks held) and one with why it can happen.
#pragma once

#include <iosfwd>

#include "analyzer/analysis.h"
#include "analyzer/symbolizer.h"
#include "trace_format/trace.h"

namespace pecan {

// Writes every finding, then the summary line (report_events.h SummaryLine). Example:
//   a.c:12: warning: data race on 'counter' (write by T1 / read by T2) [race W-R]
//   a.c:12: note: T1 writes 'counter' here (event 40), holding no lock
//   a.c:30: note: T2 reads 'counter' here (event 57), holding {m}
//   a.c:12: note: predicted (not in the recorded order): no common lock, no happens-before
void WriteTextReport(std::ostream& out, const Trace& trace, const AnalysisResult& result,
                     Symbolizer& symbolizer);

}  // namespace pecan
