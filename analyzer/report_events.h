// The facts every report format prints about a finding — who did what, where, on which variable,
// holding which locks — gathered once so the text, JSON and SARIF reports say the same thing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/finding.h"
#include "analyzer/symbolizer.h"
#include "trace_format/trace.h"

namespace pecan {

struct ReportLock {
  uint64_t address = 0;
  std::string name;  // the lock's name where known, else its address in hex
  bool read_mode = false;
};

struct ReportSite {
  SiteId id = 0;          // index into the trace's site table
  uint64_t key = 0;       // what users know the site by: the STD location for STD sites, else id
  bool is_std = false;    // a site imported from STD (module 0)
  SourceLocation source;  // function/file/line where known (STD labels like "a.c:7" parse too)
  std::string text;       // "file:line (function)", "module+0xOFF", "loc N" or the STD label
  // "file:line" when the file and line are known, else `text`: what a compiler would print.
  std::string where;
};

struct ReportEvent {
  EventIndex index = 0;
  ThreadId thread = 0;
  std::string thread_name;  // "T1" unless the trace names it otherwise
  EventKind kind = EventKind::kUnspecified;
  uint64_t address = 0;
  uint32_t size = 0;
  std::string variable;  // the accessed variable's name where known, else its address in hex
  bool variable_known = false;
  ReportSite site;
  std::vector<ReportLock> locks_held;  // outermost first
  uint32_t trace_line = 0;  // the event's line in the STD text it was imported from; 0: none
};

struct ReportFinding {
  const Finding* finding = nullptr;
  std::vector<ReportEvent> events;     // in the pattern's order
  std::vector<ReportEvent> overtaken;  // Finding::overtaken, described the same way
  std::vector<std::string> variables;  // distinct variable names, in order of appearance
};

// What a report is about, beyond the trace's own metadata.
struct ReportOrigin {
  std::string trace_path;
  std::string trace_hash;  // TraceContentHash of the trace file; empty when unknown
};

struct ReportSummary {
  uint64_t findings = 0, races = 0, atomicity = 0, asv = 0, deadlocks = 0, other = 0;
  uint64_t observed = 0, predicted = 0;
  uint64_t suppressed = 0;  // hidden by --suppressions
  uint64_t stopped = 0;     // user patterns whose search the work bound stopped
};

// Throws PecanError when a finding names an event the trace does not have.
std::vector<ReportFinding> DescribeFindings(const Trace& trace, const AnalysisResult& result,
                                            Symbolizer& symbolizer);
ReportSummary Summarize(const AnalysisResult& result);
// "3 findings: 1 race, 1 atomicity, 1 asv; 1 observed, 2 predicted" (deadlocks, when there are
// any: ", 1 deadlock"; user patterns: ", 1 other"; "; 2 suppressed" when --suppressions hid any;
// "; 1 pattern stopped by the work bound" when max_pattern_work stopped a search).
std::string SummaryLine(const ReportSummary& summary);
// One line per stopped user pattern: "pattern 'NAME VARIANT': search stopped after N steps (work
// bound, --max-pattern-work); its findings may be incomplete".
std::vector<std::string> StoppedPatternNotices(const AnalysisStats& stats);

// Small wording helpers shared by the formats.
std::string ThreadLabel(const Trace& trace, ThreadId thread);  // "T1" or the trace's name
std::string AccessNoun(EventKind kind);  // "write", "read", "atomic store", "lock", ...
std::string AccessVerb(EventKind kind);  // "writes", "reads", "atomically stores", ...
std::string PatternTitle(const std::string& pattern);  // "data race", "atomicity violation", ...
std::string LocksText(const std::vector<ReportLock>& locks);
// A deadlock finding's cycle: "T1 holds 'a' (abba.c:12) and requests 'b' (abba.c:13), T2 ...".
std::string DeadlockCycleText(const ReportFinding& described);  // "{m1, rw (read)}" or "no lock"

}  // namespace pecan
