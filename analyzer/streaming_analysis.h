// The analysis of a .pecan file without its events in memory: two passes over the file, the
// first finding the locations (as ReadTraceForAnalysis), the second feeding every kept event, in
// trace order, to the POR clocks (PorClocks), the held locks (HeldLocks) and the streaming
// searches — race-shaped patterns (streaming_races.h), the three-event patterns of atomic regions
// (streaming_units.h: atomicity, one-location asv), the four-event ones (streaming_pairs.h:
// two-location asv) and lock-order deadlocks (the LockOrderGraph of deadlock_prediction.h). Memory is bounded by the program's state (threads, locks, locations,
// access classes, open regions), not by the trace's length. The findings are Analyze's on
// the trace ReadTraceForAnalysis keeps: the same events, witnesses, counts and order.
#pragma once

#include <string>

#include "analyzer/analysis.h"

namespace pecan {

// Whether AnalyzeStreaming can serve `options`: every selected pattern race-shaped, or a built-in
// pattern of atomic regions under RegionMode::kLocks (deadlocks may be selected too). Pattern
// files and function regions need the indexed analysis. Throws PecanError for a bad pattern
// spec.
bool Streams(const AnalysisOptions& options);

// The analysis of the .pecan file at `path` (Streams(options) must hold). Findings are in the
// recorded trace's numbers, without ids (they need the events' sites: FinishFindings,
// analysis.h, on a trace holding them, e.g. ReadReportTrace); stats as Analyze gives them.
// Throws PecanError for a damaged file; warns of a truncated one once (not at all without
// `log_warnings`).
AnalysisResult AnalyzeStreaming(const std::string& path, const AnalysisOptions& options,
                                bool show_progress = false, bool log_warnings = true);

}  // namespace pecan
