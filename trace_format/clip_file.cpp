// .clip files: preamble + one zstd frame holding the serialized pecan.proto.Clip. Every length
// read from a file is checked against the file before it is trusted.
#include "trace_format/clip_file.h"

#include <zstd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_set>
#include <vector>

#include "trace_format/error.h"
#include "trace_format/output_file.h"
#include "trace_format/version.h"
#include "trace_format/zstd_frame.h"

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

// Every id a clip refers to must name an entry of the clip's own tables: readers index arrays
// and size tables by these ids, so an id from nowhere would be a crash or a huge allocation.
// Thread ids are dense (0 .. threads-1, main = 0); site ids are the trace's, so sparse.
void CheckTableReferences(const proto::Clip& clip, const std::string& source) {
  auto fail = [&source](const std::string& what) {
    Fail(source, kClipPreambleBytes, "corrupt clip: " + what);
  };
  const uint64_t thread_count = static_cast<uint64_t>(clip.threads_size());
  std::vector<bool> thread_seen(thread_count, false);
  for (const proto::ThreadInfo& thread : clip.threads()) {
    if (thread.id() >= thread_count || thread_seen[thread.id()]) {
      fail("thread id " + std::to_string(thread.id()) + " is repeated or outside the table of " +
           std::to_string(thread_count) + " threads");
    }
    thread_seen[thread.id()] = true;
    if (thread.has_parent() && thread.parent() >= thread_count) {
      fail("thread " + std::to_string(thread.id()) + " names an unknown parent " +
           std::to_string(thread.parent()));
    }
  }
  std::unordered_set<uint32_t> module_ids;
  for (const proto::Module& module : clip.modules()) module_ids.insert(module.id());
  std::unordered_set<uint32_t> site_ids;
  for (const proto::Site& site : clip.sites()) {
    if (!site_ids.insert(site.id()).second)
      fail("site " + std::to_string(site.id()) + " is listed twice");
    if (site.module() != 0 && module_ids.count(site.module()) == 0) {
      fail("site " + std::to_string(site.id()) + " names an unknown module " +
           std::to_string(site.module()));
    }
  }
  for (int run = 0; run < clip.run_thread_size(); ++run) {
    if (clip.run_thread(run) >= thread_count) {
      fail("run " + std::to_string(run) + " names thread " + std::to_string(clip.run_thread(run)) +
           ", not in the table of " + std::to_string(thread_count) + " threads");
    }
  }
  for (int step = 0; step < clip.step_site_size(); ++step) {
    if (site_ids.count(clip.step_site(step)) == 0) {
      fail("step " + std::to_string(step) + " names site " + std::to_string(clip.step_site(step)) +
           ", not in the clip's site table");
    }
  }
  for (int k = 0; k < clip.finding().events_size(); ++k) {
    if (clip.finding().events(k).thread() >= thread_count) {
      fail("finding event " + std::to_string(k) + " names thread " +
           std::to_string(clip.finding().events(k).thread()) + ", not in the table of " +
           std::to_string(thread_count) + " threads");
    }
  }
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
  std::string serialized;
  const std::string error =
      DecompressZstdFrame(nullptr, payload, length, kMaxClipPayloadBytes, serialized);
  if (!error.empty()) Fail(source, kClipPreambleBytes, "corrupt clip: " + error);

  proto::Clip clip;
  if (!clip.ParseFromString(serialized)) {
    Fail(source, kClipPreambleBytes, "corrupt clip: the payload is not a valid Clip message");
  }
  if (clip.format_major() != major) {
    Fail(source, kClipPreambleBytes,
         "corrupt clip: the payload says format " + std::to_string(clip.format_major()) +
             ", the preamble " + std::to_string(major));
  }
  CheckTableReferences(clip, source);
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
  for (uint64_t position : clip.moved_steps()) {
    if (position >= steps) {
      Fail(source, kClipPreambleBytes,
           "corrupt clip: moved step " + std::to_string(position) + " is past the schedule's " +
               std::to_string(steps) + " steps");
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
  WriteOutputFile(path, bytes);
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
