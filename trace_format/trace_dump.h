// What `pecan dump` prints for a trace — one line per event as text, STD or JSON — and the
// hooks other parts use to extend it (symbolized sites and names, other file types such as
// clips).
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace_format/trace.h"
#include "trace_format/trace_reader.h"

namespace pecan {

enum class DumpFormat { kText, kStd, kJson };

// Describes a site for humans. The default gives "libfoo.so+0x1a2b" (module file name and
// offset) or "loc 34" for STD sites; the analyzer's Symbolizer gives "file.c:12 (func)".
using SiteDescriber = std::function<std::string(SiteId)>;
// Names an address ("counter", "table+16"), or nullopt. The default looks in the trace's name
// table; the analyzer's Symbolizer also knows the modules' global variables.
using AddressNamer = std::function<std::optional<std::string>(uint64_t)>;

// What a symbolizer adds to a dump. Either may be empty: then the default above is used.
struct DumpSymbols {
  SiteDescriber describe_site;
  AddressNamer name_address;
};
// Makes the symbols for a trace's tables (the Trace passed holds tables only, no events, and
// outlives what is made).
using DumpSymbolsFactory = std::function<DumpSymbols(const Trace& tables)>;

struct TraceDumpOptions {
  DumpFormat format = DumpFormat::kText;
  bool strict_std = false;     // --format std: plain STD only
  DumpSymbolsFactory symbols;  // empty: module+offset sites, names from the trace only
};

// Streams the whole trace to `out` in the chosen format. Text and JSON are described in
// FORMAT.md ("pecan dump"); STD is exactly what `pecan convert` writes.
void DumpTrace(TraceReader& reader, std::ostream& out, const TraceDumpOptions& options);
// The same for a trace already in memory (e.g. imported from STD).
void DumpTrace(const Trace& trace, std::ostream& out, const TraceDumpOptions& options);

// The raw site description used when no symbolizer is given.
std::string DescribeSiteRaw(const std::vector<SiteInfo>& sites,
                            const std::vector<ModuleInfo>& modules, SiteId site);

// One event as a text line (no newline) / as a JSON object on one line (no newline).
std::string FormatEventText(const Trace& tables, const Event& event, EventIndex index,
                            const SiteDescriber& describe);
std::string FormatEventJson(const Trace& tables, const Event& event, EventIndex index,
                            const SiteDescriber& describe);

// Other file types plug into `pecan dump` here: a dumper claims files by their first bytes
// (e.g. a magic number) and prints them. Register from a static initializer in a file
// compiled into the `pecan` executable (a cli/*_command.cpp).
struct FileDumper {
  std::string name;  // "clip"
  std::function<bool(std::string_view first_bytes)> matches;
  std::function<void(const std::string& path, DumpFormat format, std::ostream& out)> dump;
};
void RegisterFileDumper(FileDumper dumper);
const std::vector<FileDumper>& FileDumpers();

}  // namespace pecan
