// `pecan dump`: prints a trace (.pecan or STD) one event per line as text, STD or JSON lines;
// other file types (clips) are printed by the dumper registered for their magic.
#include <iostream>

#include "cli/command.h"
#include "trace_format/error.h"
#include "trace_format/file_kind.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_dump.h"
#include "trace_format/trace_reader.h"

namespace pecan::cli {
namespace {

constexpr const char* kDumpHelp = R"(Prints every event of a trace, one per line, in global order.

Formats (--format):
  text  (default) index, thread, kind, target and site, e.g.
            12  T1     atomic_store   0x601080 (counter) size 8 release  @ app+0x1234
        Addresses are hex, with the variable's name when the trace knows it; flags are decoded
        (memory order, `try` for trylock, `timed-out` for waits); sites are module+0xOFFSET, or
        `loc N` for traces imported from STD.
  std   the STD text format (THREAD|OP(TARGET)|LOCATION), exactly what `pecan convert` writes;
        add --strict-std for plain STD without pecan's extensions.
  json  JSON lines: a {"type":"header"} object, one {"type":"event"} object per event
        (index, thread, kind, addr as a hex string, size, flags, site, where, and name/order
        when they apply), then a {"type":"tables"} object with threads, sites, modules, names,
        the program's exit and whether the file was complete.

FILE may be a .pecan trace or an STD text file. A truncated trace prints every complete chunk
and a warning on stderr.

Examples:
  pecan dump run.pecan | less
  pecan dump run.pecan --format std > run.std
  pecan dump run.pecan --format json | jq 'select(.kind == "write")')";

DumpFormat ParseFormat(const std::string& name) {
  if (name == "text") return DumpFormat::kText;
  if (name == "std") return DumpFormat::kStd;
  return DumpFormat::kJson;
}

}  // namespace

// Prints `path` in `format`: a registered dumper if one claims the file, else as a trace.
int RunDump(const std::string& path, const std::string& format_name, bool strict_std) {
  DumpFormat format = ParseFormat(format_name);
  std::string head = ReadFirstBytes(path, 64);
  for (const auto& dumper : FileDumpers()) {
    if (dumper.matches(head)) {
      dumper.dump(path, format, std::cout);
      return 0;
    }
  }
  TraceDumpOptions options;
  options.format = format;
  options.strict_std = strict_std;
  options.describer = DefaultSiteDescriberFactory();
  switch (DetectTraceFileKind(path)) {
    case TraceFileKind::kPecan: {
      TraceReader reader(path);
      DumpTrace(reader, std::cout, options);
      break;
    }
    case TraceFileKind::kStd:
      DumpTrace(ImportStdFile(path), std::cout, options);
      break;
    case TraceFileKind::kOther:
      throw PecanError(path + ": not a pecan trace, STD trace or other file pecan can dump");
  }
  std::cout.flush();
  if (!std::cout) throw PecanError("dump: cannot write the output");
  return 0;
}

namespace {

struct DumpArgs {
  std::string file;
  std::string format = "text";
  bool strict_std = false;
};

PECAN_COMMAND("dump", "Print a trace's events as text, STD or JSON", 60, [](CLI::App& app) {
  auto args = std::make_shared<DumpArgs>();
  app.footer(kDumpHelp);
  app.add_option("FILE", args->file, "the trace (.pecan or STD text) to print")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--format,-f", args->format, "text (default), std or json")
      ->check(CLI::IsMember({"text", "std", "json"}));
  app.add_flag("--strict-std", args->strict_std,
               "with --format std: plain STD only (drop pecan's extension lines)");
  return [args] { return RunDump(args->file, args->format, args->strict_std); };
});

}  // namespace
}  // namespace pecan::cli
