// Reading and writing .clip files: one bug-hatching schedule (pecan.proto.Clip) per file, with a
// small preamble (magic, format version) so a foreign, damaged or too-new file fails clearly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "proto/clip.pb.h"

namespace pecan {

// File layout (all integers little-endian):
//   bytes  0..7   "PECANCLP"
//   bytes  8..9   u16 format major    (kClipFormatMajor; a newer major is refused)
//   bytes 10..11  u16 format minor    (a newer minor is read; unknown fields are skipped)
//   byte  12      u8  payload encoding (1 = one zstd frame, with its content checksum)
//   bytes 13..15  reserved, 0
//   bytes 16..23  u64 payload length in bytes
//   bytes 24..    the payload: the serialized pecan.proto.Clip, zstd-compressed
// Clips are compressed because a clip repeats the trace's columns for every step (kind, site,
// origin); zstd shrinks those runs several times at negligible cost (bench/schedgen/README.md).
inline constexpr unsigned char kClipMagic[8] = {'P', 'E', 'C', 'A', 'N', 'C', 'L', 'P'};
inline constexpr size_t kClipPreambleBytes = 24;
inline constexpr uint8_t kClipEncodingZstd = 1;
// A reader refuses payloads (and their decompressed size) above this, before allocating; the
// decompressed size is also bounded by what the payload's bytes can hold (zstd_frame.h).
inline constexpr uint64_t kMaxClipPayloadBytes = uint64_t{1} << 32;

struct ClipWriteOptions {
  int zstd_level = 3;
};

// Writes `clip` to `path` with format_major/minor set to this build's (a clip that has them
// already is written without a copy). Returns the file's size in bytes.
// Throws PecanError when the file cannot be written.
uint64_t WriteClipFile(const std::string& path, const proto::Clip& clip,
                       const ClipWriteOptions& options = {});

// The generator of a clip a replay wrote of the run it executed (replayer/executed_clip.h), a
// failure clip among them, followed by what the run replayed and how it ended.
inline constexpr const char* kExecutedClipGenerator = "executed by a replay of ";
inline bool IsExecutedRunClip(const proto::Clip& clip) {
  return clip.generator().rfind(kExecutedClipGenerator, 0) == 0;
}

// Reads a clip. Throws PecanError naming the file and the byte offset for a missing, foreign,
// truncated or corrupt file, and for a clip of a newer major format version. A clip read is
// consistent: every thread, site and step it refers to is in its own tables (thread ids are
// 0 .. threads-1), so readers may index by them.
proto::Clip ReadClipFile(const std::string& path);

// The same on bytes in memory; `source` names them in error messages.
std::string EncodeClip(const proto::Clip& clip, const ClipWriteOptions& options = {});
proto::Clip DecodeClip(const std::string& bytes, const std::string& source);

}  // namespace pecan
