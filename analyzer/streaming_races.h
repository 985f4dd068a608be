// The race search in one pass over the events, in memory bounded by the program's state —
// threads, held locks, locations and their access classes — not by the trace's length: each
// access class keeps only its latest member, because for an access b the members of another
// class ordered before b are a prefix of it, so the latest one is the only one to test.
//
// It finds exactly what SearchPatternGroup finds for a group of race-shaped patterns on the
// trace ReadTraceForAnalysis keeps (pattern_search.cpp's race sweep: back-to-back pairs of
// the trace first, then per pair of access classes the earliest access b of one with an access
// of the other not ordered before it, and FREEs against classes), with the same witnesses,
// witness counts and candidate counts. Where the sweep's order matters (a pair of classes is
// not searched for patterns that already have an observed witness of its sites), the results of
// each location are replayed at the end in the sweep's order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/pattern.h"

namespace pecan {

// A pattern the race sweep searches: two events on one variable, back to back, in either order.
bool IsRaceShaped(const Pattern& pattern);

// Whether AnalyzeRacesFromFile can serve `options`: every selected pattern race-shaped, no
// deadlock search. Throws PecanError for a bad pattern spec.
bool StreamsRaces(const AnalysisOptions& options);

// The analysis of the .pecan file at `path` for race-shaped patterns only (StreamsRaces), in two
// passes over the file: the first finds the locations (as ReadTraceForAnalysis), the second
// searches. Findings are in the recorded trace's numbers, without ids (they need the events'
// sites: FinishFindings, analysis.h, on a trace holding them, e.g. ReadReportTrace); stats as
// Analyze gives them. Throws PecanError for a damaged file; warns of a truncated one once (not
// at all without `log_warnings`).
AnalysisResult AnalyzeRacesFromFile(const std::string& path, const AnalysisOptions& options,
                                    bool show_progress = false, bool log_warnings = true);

}  // namespace pecan
