// Encoding and decoding of the .pecan preamble, record headers and trailer (little-endian).
#include "trace_format/record_framing.h"

#include <cstring>

#include "trace_format/xxhash64.h"

namespace pecan::framing {
namespace {

void Put16(unsigned char* p, uint16_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
}
void Put32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
void Put64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint16_t Get16(const unsigned char* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t Get32(const unsigned char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t Get64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

void EncodePreamble(unsigned char out[kPreambleBytes], uint16_t major, uint16_t minor) {
  std::memcpy(out, kMagic, sizeof kMagic);
  Put16(out + 8, major);
  Put16(out + 10, minor);
  Put32(out + 12, 0);
}

std::optional<Preamble> DecodePreamble(const unsigned char in[kPreambleBytes]) {
  if (std::memcmp(in, kMagic, sizeof kMagic) != 0) return std::nullopt;
  return Preamble{Get16(in + 8), Get16(in + 10)};
}

uint32_t RecordChecksum(uint8_t type, const void* payload, uint32_t length) {
  uint64_t seed = (uint64_t{type} << 32) | length;
  return static_cast<uint32_t>(Xxh64(payload, length, seed));
}

void EncodeRecordHeader(unsigned char out[kRecordHeaderBytes], const RecordHeader& header) {
  out[0] = header.type;
  Put32(out + 1, header.length);
  Put32(out + 5, header.checksum);
}

RecordHeader DecodeRecordHeader(const unsigned char in[kRecordHeaderBytes]) {
  return RecordHeader{in[0], Get32(in + 1), Get32(in + 5)};
}

void EncodeTrailer(unsigned char out[kTrailerBytes], uint64_t footer_offset) {
  Put64(out, footer_offset);
  std::memcpy(out + 8, kEndMagic, sizeof kEndMagic);
}

std::optional<uint64_t> DecodeTrailer(const unsigned char in[kTrailerBytes]) {
  if (std::memcmp(in + 8, kEndMagic, sizeof kEndMagic) != 0) return std::nullopt;
  return Get64(in);
}

}  // namespace pecan::framing
