// Fuzz target: the .clip reader, and `pecan dump` of every clip it accepts (text and JSON),
// which indexes by the clip's ids. The input is read as a clip file, and also as the protobuf
// payload of one (framed and compressed here), since mutations of a compressed, checksummed
// payload seldom reach the parser. Bad input must end in PecanError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include <zstd.h>

#include "schedgen/clip_dump.h"
#include "trace_format/clip_file.h"
#include "trace_format/error.h"
#include "trace_format/version.h"

namespace {

void DecodeAndDump(const std::string& bytes) {
  pecan::proto::Clip clip;
  try {
    clip = pecan::DecodeClip(bytes, "fuzz.clip");
  } catch (const pecan::PecanError&) {
    return;
  }
  for (const char* format : {"text", "std", "json"}) {
    std::ostringstream out;
    pecan::DumpClip(clip, format, out);
  }
}

// `payload` as the serialized Clip of a well-formed clip file (trace_format/clip_file.h).
std::string AsClipFile(const uint8_t* payload, size_t size) {
  std::string frame(ZSTD_compressBound(size), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), payload, size, 1));
  std::string bytes(pecan::kClipPreambleBytes, '\0');
  bytes.replace(0, sizeof pecan::kClipMagic, reinterpret_cast<const char*>(pecan::kClipMagic),
                sizeof pecan::kClipMagic);
  bytes[8] = static_cast<char>(pecan::kClipFormatMajor);
  bytes[12] = static_cast<char>(pecan::kClipEncodingZstd);
  for (int i = 0; i < 8; ++i) bytes[16 + i] = static_cast<char>(frame.size() >> (8 * i));
  return bytes + frame;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DecodeAndDump(std::string(reinterpret_cast<const char*>(data), size));
  DecodeAndDump(AsClipFile(data, size));
  return 0;
}
