// Fuzz target: the .pecan reader and chunk decoder, read sequentially (ReadTrace) and by chunk
// index (ReadChunk). The input is read as a .pecan file, and also as the EventChunk payload of
// one (framed, compressed and checksummed here), since mutations of a checksummed record seldom
// reach the decoder. Bad input must end in PecanError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include <zstd.h>

#include "fuzz_input_file.h"
#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/proto_conversion.h"
#include "trace_format/record_framing.h"
#include "trace_format/trace_reader.h"
#include "trace_format/version.h"

namespace {

void Read(const uint8_t* data, size_t size) {
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
}

void AppendRecord(std::string& out, pecan::framing::RecordType type, const std::string& payload) {
  namespace framing = pecan::framing;
  const auto length = static_cast<uint32_t>(payload.size());
  const auto raw_type = static_cast<uint8_t>(type);
  unsigned char header[framing::kRecordHeaderBytes];
  framing::EncodeRecordHeader(
      header, {raw_type, length, framing::RecordChecksum(raw_type, payload.data(), length)});
  out.append(reinterpret_cast<const char*>(header), sizeof header);
  out += payload;
}

// `chunk` as the one chunk of an unfinished .pecan file (no footer: the tables come from it).
std::string AsTraceFile(const uint8_t* chunk, size_t size) {
  namespace framing = pecan::framing;
  unsigned char preamble[framing::kPreambleBytes];
  framing::EncodePreamble(preamble, pecan::kTraceFormatMajor, pecan::kTraceFormatMinor);
  std::string bytes(reinterpret_cast<const char*>(preamble), sizeof preamble);
  AppendRecord(bytes, framing::RecordType::kHeader,
               pecan::HeaderFromMeta(pecan::TraceMeta{}).SerializeAsString());
  std::string frame(ZSTD_compressBound(size), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), chunk, size, 1));
  AppendRecord(bytes, framing::RecordType::kChunk, frame);
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pecan::ScopedWarningCapture quiet;
  Read(data, size);
  const std::string framed = AsTraceFile(data, size);
  Read(reinterpret_cast<const uint8_t*>(framed.data()), framed.size());
  return 0;
}
