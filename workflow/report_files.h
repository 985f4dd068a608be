// Writes hunt's report.json with the analyzer's own report writer, so it is byte for byte what
// `pecan analyze -f json` would write for the same trace (every prediction, before replay).
#pragma once

#include <sstream>
#include <string>

#include "analyzer/analysis.h"
#include "analyzer/report_events.h"
#include "analyzer/report_json.h"
#include "analyzer/symbolizer.h"
#include "trace_format/error.h"
#include "trace_format/output_file.h"
#include "trace_format/trace.h"
#include "trace_format/trace_reader.h"

namespace pecan::workflow {

void WriteJsonReportFile(const Trace& trace, const std::string& trace_path,
                         const AnalysisResult& result, Symbolizer& symbolizer,
                         const std::string& json_path);

}  // namespace pecan::workflow
