// The byte-level framing of .pecan files: the preamble, record headers with checksums, the
// trailer, and the limits a reader enforces before trusting a length. FORMAT.md has the layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace pecan::framing {

// "PECANTRC" then u16 major, u16 minor, u32 reserved (0); all integers little-endian.
inline constexpr unsigned char kMagic[8] = {'P', 'E', 'C', 'A', 'N', 'T', 'R', 'C'};
inline constexpr size_t kPreambleBytes = 16;
// [u8 type][u32 payload length][u32 checksum], then the payload.
inline constexpr size_t kRecordHeaderBytes = 9;
// [u64 offset of the footer record]["PECANEND"]: the last 16 bytes of a finished file.
inline constexpr unsigned char kEndMagic[8] = {'P', 'E', 'C', 'A', 'N', 'E', 'N', 'D'};
inline constexpr size_t kTrailerBytes = 16;

enum class RecordType : uint8_t {
  kHeader = 1,  // TraceHeader protobuf, uncompressed; always the first record
  kChunk = 2,   // one zstd frame holding an EventChunk protobuf
  kFooter = 3,  // TraceFooter protobuf, uncompressed; the last record
};

// Limits checked before any allocation sized by a field read from a file. A writer never
// produces more; a reader treats more as corruption.
inline constexpr uint32_t kMaxRecordBytes = 1u << 30;
inline constexpr uint64_t kMaxChunkDecodedBytes = uint64_t{1} << 30;
inline constexpr uint32_t kMaxChunkEvents = 1u << 24;

struct Preamble {
  uint16_t major = 0;
  uint16_t minor = 0;
};
void EncodePreamble(unsigned char out[kPreambleBytes], uint16_t major, uint16_t minor);
// nullopt when the magic does not match.
std::optional<Preamble> DecodePreamble(const unsigned char in[kPreambleBytes]);

struct RecordHeader {
  uint8_t type = 0;
  uint32_t length = 0;
  uint32_t checksum = 0;
};
// The low 32 bits of XXH64 over the payload, seeded with the type and length so that a damaged
// record header is caught as surely as a damaged payload.
uint32_t RecordChecksum(uint8_t type, const void* payload, uint32_t length);
void EncodeRecordHeader(unsigned char out[kRecordHeaderBytes], const RecordHeader& header);
RecordHeader DecodeRecordHeader(const unsigned char in[kRecordHeaderBytes]);

void EncodeTrailer(unsigned char out[kTrailerBytes], uint64_t footer_offset);
// The footer offset, or nullopt when the end magic is missing (an unfinished file).
std::optional<uint64_t> DecodeTrailer(const unsigned char in[kTrailerBytes]);

}  // namespace pecan::framing
