// Writes hunt's report.json and report.sarif with the analyzer's own report writers, so they
// are byte for byte what `pecan analyze` would write for the same trace.
#pragma once

#include <fstream>
#include <string>

#include "analyzer/analysis.h"
#include "analyzer/report_events.h"
#include "analyzer/report_json.h"
#include "analyzer/report_sarif.h"
#include "analyzer/symbolizer.h"
#include "trace_format/error.h"
#include "trace_format/trace.h"
#include "trace_format/trace_reader.h"

namespace pecan::cli {

inline void WriteReportFiles(const Trace& trace, const std::string& trace_path,
                             const AnalysisResult& result, Symbolizer& symbolizer,
                             const std::string& json_path, const std::string& sarif_path) {
  ReportOrigin origin{trace_path, TraceContentHash(trace_path)};
  std::ofstream json(json_path);
  if (!json) throw PecanError(json_path + ": cannot write");
  WriteJsonReport(json, trace, result, symbolizer, origin);
  std::ofstream sarif(sarif_path);
  if (!sarif) throw PecanError(sarif_path + ": cannot write");
  WriteSarifReport(sarif, trace, result, symbolizer, origin);
}

}  // namespace pecan::cli
