// Reading a .pecan trace for Analyze() without holding every event: the analysis uses only the
// accesses to locations some selected pattern can use (PECAN's pre-filter: shared and written
// for the built-ins), plus every event that is not an access (synchronization, allocation,
// function and thread events). In real runs most accesses are to a thread's own data, so the
// trace the analysis holds is a fraction of the recorded one.
#pragma once

#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "trace_format/trace.h"

namespace pecan {

// Two passes over the file, chunk by chunk: the first finds the locations the patterns of
// `options` keep (memory: one entry per distinct address, size and allocation version), the
// second keeps their accesses and every event that is not an access. The result has
// Trace::origin (each event's index in the file) and recorded_events set, and Analyze() finds
// on it exactly what it finds on the whole trace: dropped accesses are to locations it drops
// itself, and POR, locksets and regions come from the events kept. Under RegionMode::kFunctions
// the whole trace is read (the root invocation of a thread is found by counting its events).
// Throws PecanError for a damaged file, like ReadTrace; warns of a truncated one once (not at
// all without `log_warnings`: for a caller that reads the file again).
Trace ReadTraceForAnalysis(const std::string& path, const AnalysisOptions& options,
                           bool show_progress = false, bool log_warnings = true);

// The analysis of a .pecan file, with a trace that holds every event a report of its findings
// reads; the findings' events are numbered in that trace (Trace::Origin gives the recorded
// numbers). The built-in patterns under lock regions (Streams) are searched on the file in memory
// bounded by the program's state (streaming_analysis.h), and the trace is then only what the report
// reads (report_trace.h); otherwise it is the trace ReadTraceForAnalysis keeps, and Analyze() runs
// on it.
struct AnalyzedFile {
  Trace trace;
  AnalysisResult result;
};
AnalyzedFile AnalyzeFile(const std::string& path, const AnalysisOptions& options,
                         bool show_progress = false, bool log_warnings = true);
// AnalyzeFile's result, every finding's events and slots in the recorded trace's numbers: for
// commands that need the whole trace afterwards (clips, replays), so the analysis and the whole
// trace are never in memory together.
AnalysisResult AnalyzeTraceFile(const std::string& path, const AnalysisOptions& options,
                                bool show_progress = false, bool log_warnings = true);

// Findings of an analysis of `trace` with their events and slots in the recorded trace's
// numbers (Trace::Origin).
void ToRecordedNumbers(const Trace& trace, std::vector<Finding>* findings);

}  // namespace pecan
