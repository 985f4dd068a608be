// `pecan dump`: prints a trace (.pecan or STD) one event per line, or a clip step by step, as
// text, STD or JSON lines; other file types by the dumper registered for their magic.
#include <iostream>
#include <memory>

#include "analyzer/symbolizer.h"
#include "cli/command.h"
#include "schedgen/clip_dump.h"
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
            12  T1     atomic_store   0x601080 (counter) size 8 release  @ app.c:31 (push)
        Addresses are hex, with the global variable's name when the program's symbol table (or
        the trace) has it; flags are decoded (memory order, `try` for trylock, `timed-out` for
        waits); sites are file:line (function) from the modules' debug information, else
        module+0xOFFSET (the module was rebuilt, stripped or is gone), or `loc N` for traces
        imported from STD.
  std   the STD text format (THREAD|OP(TARGET)|LOCATION), exactly what `pecan convert` writes;
        add --strict-std for plain STD without pecan's extensions.
  json  JSON lines: a {"type":"header"} object, one {"type":"event"} object per event
        (index, thread, kind, addr as a hex string, size, flags, site, where, and name/order
        when they apply), then a {"type":"tables"} object with threads, sites, modules, names,
        the program's exit and whether the file was complete.

FILE may be a .pecan trace, an STD text file or a clip (`pecan clips`). A truncated trace
prints every complete chunk and a warning on stderr.

A clip prints as its schedule, one step per line in schedule order (a race's two accesses as
recorded: `pecan replay` runs them swapped unless --race-order recorded):
  text  a header (finding, trace hash, program, generator, where each anomaly event runs), then
        step, thread, kind, site, the trace event it came from, `moved`, `anomaly k/n` and the
        source line.
  std   an STD trace in schedule order. Each anomaly event is preceded by a comment line
        `# anomaly k/n`; targets other than the anomaly events' are `?` (clips keep no other
        addresses); steps STD cannot express are comment lines. --strict-std also turns
        pecan's extensions (begin, end, enter, exit, atomics, waits, ...) into comment lines,
        so a plain STD reader accepts the rest.
  json  JSON lines: a {"type":"clip"} object (finding, threads, modules, sites, settings), then
        one {"type":"step"} object per step.

Examples:
  pecan dump run.pecan | less
  pecan dump run.pecan --format std > run.std
  pecan dump run.pecan --format json | jq 'select(.kind == "write")'
  pecan dump clips/race-1a2b3c4d.clip --format std --strict-std)";

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
  if (IsClipHeader(head)) return DumpClip(path, format_name, strict_std);
  for (const auto& dumper : FileDumpers()) {
    if (dumper.matches(head)) {
      dumper.dump(path, format, std::cout);
      return 0;
    }
  }
  TraceDumpOptions options;
  options.format = format;
  options.strict_std = strict_std;
  // Sites as file:line (function) and globals by name, from the modules' debug information and
  // symbol tables where they are still there (module+offset otherwise).
  options.symbols = [](const Trace& tables) {
    auto symbolizer = std::make_shared<Symbolizer>(tables);
    return DumpSymbols{
        [symbolizer](SiteId site) { return symbolizer->Describe(site); },
        [symbolizer](uint64_t address) { return symbolizer->NameOfAddress(address); }};
  };
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

PECAN_COMMAND("dump", "Print a trace or a clip as text, STD or JSON", 60, [](CLI::App& app) {
  auto args = std::make_shared<DumpArgs>();
  app.footer(kDumpHelp);
  app.add_option("FILE", args->file, "the trace (.pecan or STD text) or clip (.clip) to print")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--format,-f", args->format, "text (default), std or json")
      ->check(CLI::IsMember({"text", "std", "json"}));
  app.add_flag("--strict-std", args->strict_std,
               "with --format std: plain STD only (a trace's extension events are left out, a "
               "clip's become comment lines)");
  return [args] { return RunDump(args->file, args->format, args->strict_std); };
});

}  // namespace
}  // namespace pecan::cli
