// Import and export of the STD text trace format used by predictive-analysis tools (RAPID and
// its kin): one event per line, THREAD|OP(TARGET)|LOCATION. Extensions are in STD_FORMAT.md.
#pragma once

#include <iosfwd>
#include <string>

#include "trace_format/trace.h"

namespace pecan {

// Parses STD text. `source` names the input in error messages ("file.std:12: ...").
// Throws PecanError on a malformed line.
Trace ImportStd(std::istream& in, const std::string& source);
Trace ImportStdFile(const std::string& path);

struct StdExportOptions {
  bool strict = false;  // drop events that plain STD cannot express (pecan extensions)
};
void ExportStd(const Trace& trace, std::ostream& out, const StdExportOptions& options = {});

}  // namespace pecan
