// `pecan convert`: converts traces between the .pecan format and the STD text format (and
// re-chunks or recompresses .pecan files), streaming whenever the input is a finished file.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "trace_format/error.h"
#include "trace_format/file_kind.h"
#include "trace_format/output_file.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"

namespace pecan::cli {
namespace {

constexpr const char* kConvertHelp =
    R"(Formats are taken from the file names (.pecan, .std) unless --from/--to say otherwise;
an input without a known extension is recognized by its first bytes. OUT may be `-` for
standard output when writing STD.

STD is the text format of predictive-analysis tools such as RAPID: one event per line,
THREAD|OP(TARGET)|LOCATION, e.g. `T0|r(V12)|34`, `T2|acq(L3)|9`, `T0|fork(T2)|11`. pecan adds
extensions for its other event kinds (atomics, condition variables, barriers, functions, ...);
--strict-std leaves them out so any STD tool can read the result. STD_FORMAT.md (in
share/doc/pecan of an installed pecan; trace_format/ in the source tree) describes the format
and how names become addresses.

Examples:
  pecan convert run.pecan run.std                  # export, with pecan's extensions
  pecan convert run.pecan run.std --strict-std     # export plain STD for other tools
  pecan convert rapid-trace.txt run.pecan --from std
  pecan convert big.pecan small.pecan --zstd-level 19)";

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string from;
  std::string to;
  bool strict_std = false;
  uint32_t chunk_events = TraceWriterOptions{}.chunk_events;
  int zstd_level = TraceWriterOptions{}.zstd_level;
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string InputFormat(const ConvertArgs& a) {
  if (!a.from.empty()) return a.from;
  if (EndsWith(a.input, ".pecan")) return "pecan";
  if (EndsWith(a.input, ".std")) return "std";
  switch (DetectTraceFileKind(a.input)) {
    case TraceFileKind::kPecan:
      return "pecan";
    case TraceFileKind::kStd:
      return "std";
    case TraceFileKind::kOther:
      break;
  }
  throw PecanError(a.input + ": cannot tell its format; name it .pecan or .std, or pass --from");
}

std::string OutputFormat(const ConvertArgs& a) {
  if (!a.to.empty()) return a.to;
  if (EndsWith(a.output, ".pecan")) return "pecan";
  if (EndsWith(a.output, ".std") || a.output == "-") return "std";
  throw PecanError(a.output +
                   ": cannot tell which format to write; name it .pecan or .std, or pass --to");
}

// Appends event i's STD line; true when that is an event line (strict export drops pecan's
// extensions, and a kind STD cannot express becomes a comment).
bool AppendStdEvent(const StdExporter& exporter, const Event& e, EventIndex i, std::string& out) {
  const size_t before = out.size();
  exporter.AppendLine(e, i, out);
  return out.size() != before && out[before] != '#';
}

// Writes a trace in memory as STD text; returns the events written.
uint64_t WriteStdEvents(const Trace& trace, std::ostream& out, const StdExportOptions& options) {
  StdExporter exporter(trace.threads, trace.sites, trace.names, options);
  std::string buffer;
  uint64_t written = 0;
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    written += AppendStdEvent(exporter, trace.event(i), i, buffer);
    if (buffer.size() >= (1 << 16)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  return written;
}

// Streams a finished .pecan file into `sink`, one chunk at a time.
template <typename Sink>
uint64_t StreamEvents(TraceReader& reader, Sink sink) {
  EventBatch batch;
  uint64_t events = 0;
  while (reader.Next(batch)) {
    for (size_t i = 0; i < batch.count(); ++i) sink(batch.event(i), batch.first_event + i);
    events += batch.count();
  }
  return events;
}

void WriteStdOutput(const ConvertArgs& a, const std::function<void(std::ostream&)>& write) {
  if (a.output == "-") {
    write(std::cout);
    std::cout.flush();
    if (!std::cout) throw PecanError("convert: cannot write to standard output");
    return;
  }
  OutputFile output(a.output);
  std::ofstream out(output.temp_path(), std::ios::binary | std::ios::trunc);
  if (!out) throw PecanError(a.output + ": cannot create: " + std::strerror(errno));
  write(out);
  out.close();
  if (!out) throw PecanError(a.output + ": cannot write: " + std::strerror(errno));
  output.Commit();
}

// Writes a .pecan file through an OutputFile: a failure leaves no partial file behind.
void WritePecanOutput(const ConvertArgs& a, const std::function<void(const std::string&)>& write) {
  OutputFile output(a.output);
  try {
    write(output.temp_path());
  } catch (const PecanError& e) {
    throw PecanError(output.InUserTerms(e.what()));
  }
  output.Commit();
}

int RunConvert(const ConvertArgs& a) {
  std::string from = InputFormat(a);
  std::string to = OutputFormat(a);
  if (a.input == a.output) throw PecanError("convert: IN and OUT are the same file");
  TraceWriterOptions writer_options{a.chunk_events, a.zstd_level};
  StdExportOptions std_options{a.strict_std};
  uint64_t events = 0;   // read
  uint64_t written = 0;  // written: fewer than read when STD export leaves some out

  if (from == "pecan") {
    TraceReader reader(a.input);
    if (reader.complete() && to == "pecan") {
      WritePecanOutput(a, [&](const std::string& path) {
        TraceWriter writer(path, reader.meta(), writer_options);
        for (size_t i = 0; i < reader.threads().size(); ++i)
          writer.AddThread(static_cast<ThreadId>(i), reader.threads()[i]);
        for (size_t i = 0; i < reader.sites().size(); ++i)
          writer.AddSite(static_cast<SiteId>(i), reader.sites()[i]);
        for (const auto& m : reader.modules()) writer.AddModule(m);
        for (const auto& n : reader.names()) writer.AddName(n);
        events = StreamEvents(reader, [&writer](const Event& e, EventIndex) { writer.Append(e); });
        writer.Finish(reader.meta().exit, reader.meta().dropped_events,
                      reader.meta().blocked_threads);
      });
      written = events;
    } else if (reader.complete() && to == "std") {
      StdExporter exporter(reader.threads(), reader.sites(), reader.names(), std_options);
      WriteStdOutput(a, [&](std::ostream& out) {
        std::string buffer;
        events = StreamEvents(reader, [&](const Event& e, EventIndex i) {
          written += AppendStdEvent(exporter, e, i, buffer);
          if (buffer.size() >= (1 << 16)) {
            out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
            buffer.clear();
          }
        });
        out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      });
    } else {
      // An unfinished file brings its tables chunk by chunk: read it whole first.
      Trace trace = ReadTrace(a.input);
      events = trace.size_events();
      if (to == "pecan") {
        WritePecanOutput(a,
                         [&](const std::string& path) { WriteTrace(path, trace, writer_options); });
        written = events;
      } else {
        WriteStdOutput(
            a, [&](std::ostream& out) { written = WriteStdEvents(trace, out, std_options); });
      }
    }
  } else {
    Trace trace = ImportStdFile(a.input);
    events = trace.size_events();
    if (to == "pecan") {
      WritePecanOutput(a,
                       [&](const std::string& path) { WriteTrace(path, trace, writer_options); });
      written = events;
    } else {
      WriteStdOutput(a,
                     [&](std::ostream& out) { written = WriteStdEvents(trace, out, std_options); });
    }
  }
  if (a.output != "-") {
    std::cout << "pecan convert: wrote " << written << " events to " << a.output << " (" << to;
    if (written != events) {
      std::cout << "; " << events - written << " of " << events << " left out: "
                << (a.strict_std ? "plain STD cannot express them" : "STD cannot express them");
    }
    std::cout << ")\n";
  }
  return 0;
}

PECAN_COMMAND("convert", "Convert a trace between .pecan and STD text", 61, [](CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  app.footer(kConvertHelp);
  app.add_option("IN", args->input, "the trace to read (.pecan or STD text)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("OUT", args->output, "the file to write (.pecan or .std; `-` = stdout, STD)")
      ->required();
  app.add_option("--from", args->from, "input format, when the name does not say: pecan or std")
      ->check(CLI::IsMember({"pecan", "std"}));
  app.add_option("--to", args->to, "output format, when the name does not say: pecan or std")
      ->check(CLI::IsMember({"pecan", "std"}));
  app.add_flag("--strict-std", args->strict_std,
               "write plain STD only: drop the lines of pecan's extension operations");
  app.add_option("--chunk-events", args->chunk_events,
                 "events per chunk when writing .pecan (default 65536)")
      ->check(CLI::Range(1u, 1u << 24));
  app.add_option("--zstd-level", args->zstd_level,
                 "zstd compression level when writing .pecan (default 3; 1 fastest, 19 smallest)")
      ->check(CLI::Range(-7, 22));
  return [args] { return RunConvert(*args); };
});

}  // namespace
}  // namespace pecan::cli
