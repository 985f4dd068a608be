#include "workflow/report_files.h"

namespace pecan::workflow {

void WriteJsonReportFile(const Trace& trace, const std::string& trace_path,
                         const AnalysisResult& result, Symbolizer& symbolizer,
                         const std::string& json_path) {
  ReportOrigin origin{trace_path, TraceContentHash(trace_path)};
  std::ostringstream json;
  WriteJsonReport(json, trace, result, symbolizer, origin);
  WriteOutputFile(json_path, json.str());  // whole or not at all
}

}  // namespace pecan::workflow
