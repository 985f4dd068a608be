// Fuzz target: the STD importer, then the promise that what it accepts is written as a .pecan
// file that reads back with the same events, and exported as STD. Bad input must end in
// PecanError; a crash, another exception or an unreadable output is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "fuzz_input_file.h"
#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/std_format.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pecan::ScopedWarningCapture quiet;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  pecan::Trace trace;
  try {
    trace = pecan::ImportStd(in, "fuzz.std");
  } catch (const pecan::PecanError&) {
    return 0;
  }
  std::ostringstream std_out;
  pecan::ExportStd(trace, std_out);

  pecan::fuzz::InputFile file(nullptr, 0);
  try {
    pecan::WriteTrace(file.path(), trace, pecan::TraceWriterOptions{16, 1});
  } catch (const pecan::PecanError&) {
    return 0;  // refused, and said so: not a false success
  }
  const pecan::Trace back = pecan::ReadTrace(file.path());  // throws (a finding) if unreadable
  if (back.size_events() != trace.size_events() || back.threads.size() != trace.threads.size())
    std::abort();
  return 0;
}
