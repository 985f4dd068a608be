// Import and export of the STD text trace format used by predictive-analysis tools (RAPID and
// its kin): one event per line, THREAD|OP(TARGET)|LOCATION. Extensions are in STD_FORMAT.md.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

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

// Streaming export, for traces read chunk by chunk: the tables must be complete (a finished
// .pecan file's footer) and outlive the exporter.
class StdExporter {
 public:
  StdExporter(const std::vector<ThreadInfo>& threads, const std::vector<SiteInfo>& sites,
              const std::vector<AddressName>& names, const StdExportOptions& options = {});
  ~StdExporter();
  StdExporter(const StdExporter&) = delete;
  StdExporter& operator=(const StdExporter&) = delete;

  // Appends the STD line of event `index` (with its '\n'; nothing for a dropped event).
  void AppendLine(const Event& event, EventIndex index, std::string& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
