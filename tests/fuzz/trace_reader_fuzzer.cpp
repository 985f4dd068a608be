// Fuzz target: the .pecan reader and chunk decoder, read sequentially (ReadTrace) and by chunk
// index (ReadChunk). Bad input must end in PecanError; anything else is a finding.
#include <cstddef>
#include <cstdint>

#include "fuzz_input_file.h"
#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pecan::ScopedWarningCapture quiet;
  pecan::fuzz::InputFile file(data, size);
  try {
    pecan::ReadTrace(file.path());
  } catch (const pecan::PecanError&) {
  }
  try {
    pecan::TraceReader reader(file.path());
    pecan::EventBatch batch;
    for (size_t i = reader.chunk_count(); i-- > 0;) reader.ReadChunk(i, batch);
  } catch (const pecan::PecanError&) {
  }
  return 0;
}
