// The JSON report (for tools and for `pecan clips --report`): findings with their events,
// sites, locks held and the reason, plus analysis statistics; and its reader.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "analyzer/analysis.h"
#include "analyzer/finding.h"
#include "analyzer/report_events.h"
#include "analyzer/symbolizer.h"
#include "trace_format/trace.h"

namespace pecan {

// The report's own format version; readers accept any minor of their major.
//   1.0: first version.
//   1.1: "adjacent" per finding (the pattern's flag). Reading a 1.0 report, a two-event "race"
//        is adjacent and every other finding is not, as the built-in patterns are.
inline constexpr int kJsonReportMajor = 1;
inline constexpr int kJsonReportMinor = 1;

// Shape (every finding event and overtaken event has the same fields):
// {"format": {"major": 1, "minor": 1}, "trace": PATH, "trace_hash": HEX, "program": PATH,
//  "args": [..], "findings": [{"id", "pattern", "variant", "observed", "adjacent", "reason",
//    "witnesses",
//    "events": [{"index", "thread": "T<n>", "thread_name", "kind", "address": "0x..", "size",
//                "variable", "locks_held": ["m1", "rw (read)"],
//                "site": {"id", "text", "function", "file", "line"}}],
//    "overtaken": [...]}],
//  "stats": {"events", "shared_locations", "candidates", "seconds_total",
//            "seconds_by_family": {"race": s, ...}, "findings", "races", "atomicity", "asv",
//            "other", "observed", "predicted"}}
// site.id is the STD location for STD sites (or the label's hash; site.text has the label),
// else the index into the trace's site table. "variable" is the name where the symbol tables
// or the trace's name table know it, else the address in hex. "function"/"file" are "" and
// "line" 0 when unknown.
void WriteJsonReport(std::ostream& out, const Trace& trace, const AnalysisResult& result,
                     Symbolizer& symbolizer, const ReportOrigin& origin);

struct LoadedReport {
  std::string trace_path;
  std::string trace_hash;
  std::string program;
  std::vector<Finding> findings;
};

// Reads a JSON report back (what `pecan clips --report` needs). Throws PecanError naming the
// file for unreadable files, invalid JSON, a newer major format or missing fields.
LoadedReport LoadJsonReport(const std::string& path);
std::vector<Finding> ReadJsonReport(const std::string& path);

}  // namespace pecan
