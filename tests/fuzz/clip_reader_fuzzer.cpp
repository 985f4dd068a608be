// Fuzz target: the .clip reader, and `pecan dump` of every clip it accepts (text and JSON),
// which indexes by the clip's ids. Bad input must end in PecanError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "schedgen/clip_dump.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  pecan::proto::Clip clip;
  try {
    clip = pecan::DecodeClip(bytes, "fuzz.clip");
  } catch (const pecan::PecanError&) {
    return 0;
  }
  for (const char* format : {"text", "std", "json"}) {
    std::ostringstream out;
    pecan::DumpClip(clip, format, out);
  }
  return 0;
}
