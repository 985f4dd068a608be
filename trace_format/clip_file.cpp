// .clip files: preamble + one zstd frame holding the serialized pecan.proto.Clip. Every length
// read from a file is checked against the file before it is trusted.
#include "trace_format/clip_file.h"

#include <zstd.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "trace_format/error.h"
#include "trace_format/version.h"

namespace pecan {
namespace {

void PutLe(unsigned char* out, uint64_t value, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

uint64_t GetLe(const unsigned char* in, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

[[noreturn]] void Fail(const std::string& source, uint64_t offset, const std::string& what) {
  throw PecanError(source + ": offset " + std::to_string(offset) + ": " + what);
}

}  // namespace

std::string EncodeClip(const proto::Clip& clip, const ClipWriteOptions& options) {
  std::string serialized;
  bool serialized_ok = false;
  if (clip.format_major() == kClipFormatMajor && clip.format_minor() == kClipFormatMinor) {
    serialized_ok = clip.SerializeToString(&serialized);
  } else {
    // Copying a clip of a million steps costs more than encoding it: only stamp when needed.
    proto::Clip stamped = clip;
    stamped.set_format_major(kClipFormatMajor);
    stamped.set_format_minor(kClipFormatMinor);
    serialized_ok = stamped.SerializeToString(&serialized);
  }
  if (!serialized_ok) throw PecanError("clip: cannot serialize the clip");

  std::string compressed(ZSTD_compressBound(serialized.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  if (!cctx) throw PecanError("clip: zstd: out of memory");
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options.zstd_level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);  // catches damage inside the frame
  const size_t n = ZSTD_compress2(cctx, compressed.data(), compressed.size(), serialized.data(),
                                  serialized.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) throw PecanError(std::string("clip: zstd: ") + ZSTD_getErrorName(n));
  compressed.resize(n);

  unsigned char preamble[kClipPreambleBytes] = {};
  std::memcpy(preamble, kClipMagic, sizeof(kClipMagic));
  PutLe(preamble + 8, kClipFormatMajor, 2);
  PutLe(preamble + 10, kClipFormatMinor, 2);
  preamble[12] = kClipEncodingZstd;
  PutLe(preamble + 16, compressed.size(), 8);

  std::string bytes(reinterpret_cast<const char*>(preamble), kClipPreambleBytes);
  bytes += compressed;
  return bytes;
}

proto::Clip DecodeClip(const std::string& bytes, const std::string& source) {
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < sizeof(kClipMagic) || std::memcmp(data, kClipMagic, sizeof(kClipMagic)) != 0) {
    Fail(source, 0, "not a pecan clip (no PECANCLP magic)");
  }
  if (bytes.size() < kClipPreambleBytes) {
    Fail(source, bytes.size(),
         "truncated clip: the preamble needs " + std::to_string(kClipPreambleBytes) + " bytes");
  }
  const uint64_t major = GetLe(data + 8, 2);
  const uint64_t minor = GetLe(data + 10, 2);
  if (major > kClipFormatMajor) {
    Fail(source, 8,
         "clip format " + std::to_string(major) + "." + std::to_string(minor) +
             " is newer than this pecan reads (" + std::to_string(kClipFormatMajor) +
             ".x); use a newer pecan");
  }
  if (major == 0) Fail(source, 8, "corrupt clip: format major version 0");
  if (data[12] != kClipEncodingZstd) {
    Fail(source, 12, "corrupt clip: unknown payload encoding " + std::to_string(data[12]));
  }
  const uint64_t length = GetLe(data + 16, 8);
  const uint64_t available = bytes.size() - kClipPreambleBytes;
  if (length > available) {
    Fail(source, bytes.size(),
         "truncated clip: the payload needs " + std::to_string(length) + " bytes, the file has " +
             std::to_string(available));
  }
  if (length < available) {
    Fail(source, kClipPreambleBytes + length,
         "corrupt clip: " + std::to_string(available - length) + " stray bytes after the payload");
  }

  const unsigned char* payload = data + kClipPreambleBytes;
  const unsigned long long decoded_size = ZSTD_getFrameContentSize(payload, length);
  if (decoded_size == ZSTD_CONTENTSIZE_ERROR || decoded_size == ZSTD_CONTENTSIZE_UNKNOWN) {
    Fail(source, kClipPreambleBytes, "corrupt clip: the payload is not a zstd frame");
  }
  if (decoded_size > kMaxClipPayloadBytes) {
    Fail(source, kClipPreambleBytes,
         "corrupt clip: implausible decoded size " + std::to_string(decoded_size));
  }
  std::string serialized(decoded_size, '\0');
  const size_t n = ZSTD_decompress(serialized.data(), serialized.size(), payload, length);
  if (ZSTD_isError(n) || n != decoded_size) {
    Fail(source, kClipPreambleBytes,
         std::string("corrupt clip: ") +
             (ZSTD_isError(n) ? ZSTD_getErrorName(n) : "decoded size does not match"));
  }

  proto::Clip clip;
  if (!clip.ParseFromString(serialized)) {
    Fail(source, kClipPreambleBytes, "corrupt clip: the payload is not a valid Clip message");
  }
  if (clip.format_major() != major) {
    Fail(source, kClipPreambleBytes,
         "corrupt clip: the payload says format " + std::to_string(clip.format_major()) +
             ", the preamble " + std::to_string(major));
  }
  uint64_t steps = 0;
  for (uint32_t length_of_run : clip.run_length()) steps += length_of_run;
  if (clip.run_thread_size() != clip.run_length_size() ||
      static_cast<uint64_t>(clip.step_kind_size()) != steps ||
      static_cast<uint64_t>(clip.step_site_size()) != steps ||
      static_cast<uint64_t>(clip.step_origin_size()) != steps ||
      (clip.step_repeat_of_size() != 0 &&
       static_cast<uint64_t>(clip.step_repeat_of_size()) != steps) ||
      (clip.step_repeats_before_size() != 0 &&
       static_cast<uint64_t>(clip.step_repeats_before_size()) != steps)) {
    Fail(source, kClipPreambleBytes,
         "corrupt clip: the schedule's columns disagree on the number of steps");
  }
  for (int s = 0; s < clip.step_repeat_of_size(); ++s) {
    if (clip.step_repeat_of(s) > static_cast<uint64_t>(s)) {
      Fail(source, kClipPreambleBytes,
           "corrupt clip: step " + std::to_string(s) + " repeats a step before the first");
    }
  }
  for (uint64_t position : clip.anomaly_steps()) {
    if (position >= steps) {
      Fail(source, kClipPreambleBytes,
           "corrupt clip: anomaly step " + std::to_string(position) + " is past the schedule's " +
               std::to_string(steps) + " steps");
    }
  }
  return clip;
}

uint64_t WriteClipFile(const std::string& path, const proto::Clip& clip,
                       const ClipWriteOptions& options) {
  const std::string bytes = EncodeClip(clip, options);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw PecanError(path + ": cannot create the clip file");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw PecanError(path + ": cannot write the clip file");
  return bytes.size();
}

proto::Clip ReadClipFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PecanError(path + ": cannot open the clip file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw PecanError(path + ": cannot read the clip file");
  return DecodeClip(bytes, path);
}

}  // namespace pecan
