// DescribeRecordedDeadlock: the trace's tables and the modules' debug info name the sites
// (file:line, as the replayer's stuck report does) and static objects.
#include "cli/record_deadlock_text.h"

#include "analyzer/symbolizer.h"
#include "trace_format/blocked_threads_text.h"
#include "trace_format/error.h"
#include "trace_format/trace_reader.h"

namespace pecan::cli {

std::string DescribeRecordedDeadlock(const std::string& trace_path) {
  try {
    TraceReader reader(trace_path);
    if (reader.meta().blocked_threads.empty()) return "";
    Trace tables;
    tables.meta = reader.meta();
    tables.threads = reader.threads();
    tables.sites = reader.sites();
    tables.modules = reader.modules();
    tables.names = reader.names();
    Symbolizer symbolizer(tables);
    const SiteDescriber site = [&symbolizer](SiteId id) {
      const SourceLocation location = symbolizer.Resolve(id);
      if (location.file.empty()) return symbolizer.Describe(id);
      const size_t slash = location.file.find_last_of('/');
      return (slash == std::string::npos ? location.file : location.file.substr(slash + 1)) + ":" +
             std::to_string(location.line);
    };
    const AddressNamer name = [&symbolizer](uint64_t address) {
      return symbolizer.NameOfAddress(address);
    };
    return DescribeBlockedThreads(tables, site, name);
  } catch (const PecanError&) {
    return "";
  }
}

}  // namespace pecan::cli
