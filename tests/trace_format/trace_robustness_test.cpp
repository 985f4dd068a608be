// Bad input: a small multi-chunk trace cut at every byte and with bytes flipped at every offset
// must recover every complete chunk or fail with one PecanError naming the file and a byte
// offset — never crash or hang. Also: newer minor versions are read, newer majors refused.
#include <catch2/catch.hpp>

#include <zstd.h>

#include "proto/trace.pb.h"
#include "random_trace.h"
#include "reference_chunk.h"
#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/proto_conversion.h"
#include "trace_format/record_framing.h"
#include "trace_format/trace_reader.h"
#include "trace_format/trace_writer.h"
#include "trace_format/xxhash64.h"

using namespace pecan;
using pecan::testing::MakeRandomTrace;
using pecan::testing::ReadFileBytes;
using pecan::testing::TempFile;
using pecan::testing::WriteFileBytes;

namespace {

struct SmallTrace {
  Trace trace;
  std::string bytes;
  uint64_t header_end = 0;                                // first byte after the header record
  std::vector<std::pair<uint64_t, uint64_t>> chunk_ends;  // (end offset, events up to there)
};

SmallTrace MakeSmallTrace() {
  SmallTrace s;
  s.trace = MakeRandomTrace(7, pecan::testing::RandomTraceShape{300, 4, 20});
  TempFile file("small.pecan");
  WriteTrace(file.path(), s.trace, TraceWriterOptions{50, 3});
  s.bytes = ReadFileBytes(file.path());
  auto header = framing::DecodeRecordHeader(reinterpret_cast<const unsigned char*>(s.bytes.data()) +
                                            framing::kPreambleBytes);
  s.header_end = framing::kPreambleBytes + framing::kRecordHeaderBytes + header.length;
  // Chunk ends from the framing itself: walk the records after the header.
  uint64_t offset = s.header_end;
  uint64_t events = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(s.bytes.data());
  while (offset + framing::kRecordHeaderBytes <= s.bytes.size()) {
    auto h = framing::DecodeRecordHeader(data + offset);
    if (h.type != static_cast<uint8_t>(framing::RecordType::kChunk)) break;
    offset += framing::kRecordHeaderBytes + h.length;
    events += std::min<uint64_t>(50, s.trace.size_events() - events);
    s.chunk_ends.emplace_back(offset, events);
  }
  return s;
}

bool MentionsFileAndOffset(const std::string& message, const std::string& path) {
  return message.rfind(path + ":byte ", 0) == 0;
}

}  // namespace

TEST_CASE("a trace cut at every byte recovers every complete chunk", "[robustness]") {
  SmallTrace s = MakeSmallTrace();
  REQUIRE(s.chunk_ends.size() == 6);
  TempFile file("cut.pecan");
  for (size_t cut = 0; cut <= s.bytes.size(); ++cut) {
    WriteFileBytes(file.path(), s.bytes.substr(0, cut));
    INFO("cut at " << cut << " of " << s.bytes.size());
    uint64_t expected = 0;
    for (auto [end, events] : s.chunk_ends)
      if (end <= cut) expected = events;
    pecan::ScopedWarningCapture warnings;
    try {
      Trace t = ReadTrace(file.path());
      CHECK(cut >= s.header_end);
      REQUIRE(t.size_events() == expected);
      for (size_t i = 0; i < expected; ++i) REQUIRE(t.event(i) == s.trace.event(i));
      if (cut == s.bytes.size()) {
        CHECK(warnings.messages().empty());
      } else {
        REQUIRE(warnings.messages().size() == 1);
        CHECK_THAT(warnings.messages()[0],
                   Catch::Contains("recovered " + std::to_string(expected) + " events"));
      }
      // Random access agrees with the stream.
      TraceReader reader(file.path());
      size_t chunks = 0;
      for (auto [end, events] : s.chunk_ends) chunks += end <= cut;
      CHECK(reader.chunk_count() == chunks);
    } catch (const PecanError& e) {
      CHECK(cut < s.header_end);
      CHECK_THAT(e.what(), Catch::StartsWith(file.path() + ":"));
    }
  }
}

TEST_CASE("a trace with a flipped byte anywhere is read intact or refused", "[robustness]") {
  SmallTrace s = MakeSmallTrace();
  TempFile file("flip.pecan");
  size_t refused = 0;
  for (size_t at = 0; at < s.bytes.size(); ++at) {
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      std::string damaged = s.bytes;
      damaged[at] = static_cast<char>(damaged[at] ^ mask);
      WriteFileBytes(file.path(), damaged);
      INFO("byte " << at << " xor " << int(mask));
      pecan::ScopedWarningCapture warnings;
      try {
        Trace t = ReadTrace(file.path());
        // Only bytes outside every checksum may change without an error (the preamble's
        // version and reserved bytes, the trailer's end magic), and then the events are intact.
        REQUIRE(t.size_events() == s.trace.size_events());
        CHECK(t.kind == s.trace.kind);
        CHECK(t.addr == s.trace.addr);
        CHECK(t.thread == s.trace.thread);
        CHECK(t.site == s.trace.site);
        bool in_preamble = at < framing::kPreambleBytes;
        bool in_end_magic = at >= s.bytes.size() - 8;
        CHECK((in_preamble || in_end_magic));
      } catch (const PecanError& e) {
        ++refused;
        CHECK((MentionsFileAndOffset(e.what(), file.path()) ||
               std::string(e.what()).find("newer pecan") != std::string::npos));
      }
    }
  }
  CHECK(refused > 3 * (s.bytes.size() - 32));
}

TEST_CASE("foreign and empty files are refused with the file's name", "[robustness]") {
  TempFile file("foreign.pecan");
  WriteFileBytes(file.path(), "T0|r(x)|1\nT1|w(x)|2\n");
  CHECK_THROWS_WITH(ReadTrace(file.path()), file.path() + ":byte 0: not a pecan trace (bad magic)");
  WriteFileBytes(file.path(), "");
  CHECK_THROWS_WITH(ReadTrace(file.path()), file.path() + ": empty file (not a pecan trace)");
  CHECK_THROWS_WITH(ReadTrace("/nonexistent.pecan"),
                    Catch::StartsWith("/nonexistent.pecan: cannot open"));
  CHECK_THROWS_WITH(ReadTrace("/tmp"), "/tmp: not a regular file");
}

namespace {

// Builds a .pecan file by hand, to write what this pecan's writer never would: other versions,
// unknown fields, unknown record types and event kinds.
class HandMadeTrace {
 public:
  HandMadeTrace(uint16_t major, uint16_t minor) {
    unsigned char preamble[framing::kPreambleBytes];
    framing::EncodePreamble(preamble, major, minor);
    bytes_.append(reinterpret_cast<char*>(preamble), sizeof preamble);
  }

  void Record(framing::RecordType type, const std::string& payload) {
    Record(static_cast<uint8_t>(type), payload);
  }
  void Record(uint8_t type, const std::string& payload) {
    framing::RecordHeader h{
        type, static_cast<uint32_t>(payload.size()),
        framing::RecordChecksum(type, payload.data(), static_cast<uint32_t>(payload.size()))};
    unsigned char header[framing::kRecordHeaderBytes];
    framing::EncodeRecordHeader(header, h);
    bytes_.append(reinterpret_cast<char*>(header), sizeof header);
    bytes_ += payload;
  }

  void Chunk(const proto::EventChunk& chunk) {
    std::string raw = chunk.SerializeAsString();
    std::string compressed(ZSTD_compressBound(raw.size()), '\0');
    compressed.resize(
        ZSTD_compress(compressed.data(), compressed.size(), raw.data(), raw.size(), 3));
    auto* entry = footer_.add_chunks();
    entry->set_file_offset(bytes_.size());
    entry->set_first_event(chunk.first_event());
    entry->set_count(chunk.count());
    entry->set_compressed_bytes(static_cast<uint32_t>(compressed.size()));
    footer_.set_event_count(footer_.event_count() + chunk.count());
    hash_.Update(compressed.data(), compressed.size());
    Record(framing::RecordType::kChunk, compressed);
  }

  std::string Finish(proto::TraceFooter footer_extra) {
    footer_extra.MergeFrom(footer_);
    footer_extra.set_checksum(hash_.Digest());
    uint64_t at = bytes_.size();
    Record(framing::RecordType::kFooter, footer_extra.SerializeAsString());
    unsigned char trailer[framing::kTrailerBytes];
    framing::EncodeTrailer(trailer, at);
    bytes_.append(reinterpret_cast<char*>(trailer), sizeof trailer);
    return bytes_;
  }

 private:
  std::string bytes_;
  proto::TraceFooter footer_;
  Xxh64Stream hash_;
};

template <typename Message>
void AddUnknownField(Message& m) {
  m.GetReflection()->MutableUnknownFields(&m)->AddVarint(1000, 42);
  m.GetReflection()->MutableUnknownFields(&m)->AddLengthDelimited(1001, "from the future");
}

std::string FutureTrace(uint16_t major, uint16_t minor, uint8_t extra_kind) {
  HandMadeTrace file(major, minor);
  TraceMeta meta;
  meta.producer = "pecan 9";
  proto::TraceHeader header = HeaderFromMeta(meta);
  AddUnknownField(header);
  file.Record(framing::RecordType::kHeader, header.SerializeAsString());

  EventBatch batch;
  auto add = [&batch](ThreadId t, uint8_t kind, uint64_t addr) {
    batch.thread.push_back(t);
    batch.kind.push_back(static_cast<EventKind>(kind));
    batch.flags.push_back(0);
    batch.size.push_back(8);
    batch.addr.push_back(addr);
    batch.site.push_back(0);
  };
  add(0, static_cast<uint8_t>(EventKind::kWrite), 0x1000);
  add(1, extra_kind, 0x1000);
  add(1, static_cast<uint8_t>(EventKind::kRead), 0x1008);
  proto::EventChunk chunk = pecan::testing::ReferenceChunk(batch, major);
  *chunk.add_new_threads() = ThreadToProto(0, ThreadInfo{});
  *chunk.add_new_threads() = ThreadToProto(1, ThreadInfo{0, 0, "child"});
  *chunk.add_new_sites() = SiteToProto(0, SiteInfo{0, 12});
  AddUnknownField(chunk);
  AddUnknownField(*chunk.mutable_new_threads(1));
  file.Chunk(chunk);
  file.Record(77, "a record type this pecan does not know");

  proto::TraceFooter footer;
  *footer.add_threads() = ThreadToProto(0, ThreadInfo{});
  *footer.add_threads() = ThreadToProto(1, ThreadInfo{0, 0, "child"});
  *footer.add_sites() = SiteToProto(0, SiteInfo{0, 12});
  AddUnknownField(footer);
  return file.Finish(footer);
}

}  // namespace

TEST_CASE("a newer minor version with unknown fields, records and kinds is read", "[robustness]") {
  TempFile file("future-minor.pecan");
  WriteFileBytes(file.path(), FutureTrace(kTraceFormatMajor, kTraceFormatMinor + 9,
                                          static_cast<uint8_t>(EventKind::kRead)));
  pecan::ScopedWarningCapture warnings;
  Trace t = ReadTrace(file.path());
  CHECK(warnings.messages().empty());
  REQUIRE(t.size_events() == 3);
  CHECK(t.meta.format_minor == kTraceFormatMinor + 9);
  CHECK(t.meta.producer == "pecan 9");
  CHECK(t.threads[1].name == "child");
  CHECK(t.addr == std::vector<uint64_t>{0x1000, 0x1000, 0x1008});

  // An event kind added by that newer minor is kept, with one warning.
  WriteFileBytes(file.path(), FutureTrace(kTraceFormatMajor, kTraceFormatMinor + 9, 42));
  Trace k = ReadTrace(file.path());
  REQUIRE(k.size_events() == 3);
  CHECK(static_cast<int>(k.kind[1]) == 42);
  REQUIRE(warnings.messages().size() == 1);
  CHECK_THAT(warnings.messages()[0], Catch::Contains("event kinds this pecan does not know"));
}

TEST_CASE("a newer major version is refused, saying so", "[robustness]") {
  TempFile file("future-major.pecan");
  const uint16_t major = kTraceFormatMajor + 1;
  WriteFileBytes(file.path(), FutureTrace(major, 0, static_cast<uint8_t>(EventKind::kRead)));
  CHECK_THROWS_WITH(ReadTrace(file.path()),
                    file.path() + ":byte 8: written by a newer pecan (format " +
                        std::to_string(major) + ".0); this pecan reads formats 1.x to " +
                        std::to_string(kTraceFormatMajor) + ".x");
}

TEST_CASE("files of format 1 are still read", "[robustness]") {
  // Format 1 stored each address relative to the thread's previous one.
  TempFile file("format-1.pecan");
  WriteFileBytes(file.path(), FutureTrace(1, 0, static_cast<uint8_t>(EventKind::kRead)));
  Trace t = ReadTrace(file.path());
  CHECK(t.meta.format_major == 1);
  CHECK(t.addr == std::vector<uint64_t>{0x1000, 0x1000, 0x1008});
}

TEST_CASE("a chunk claiming more than its bytes can hold is refused before allocating",
          "[robustness]") {
  // Issue 20: a 181-byte trace whose chunk declares 1 GiB made the reader allocate 1 GiB.
  // The chunk: a 17-byte zstd frame declaring `claimed` bytes, holding one RLE byte.
  const uint64_t claimed = uint64_t{1} << 30;
  std::string frame = "\x28\xb5\x2f\xfd";
  frame += '\xe0';  // single segment, 8-byte content size, no checksum
  for (int i = 0; i < 8; ++i) frame += static_cast<char>(claimed >> (8 * i));
  frame += std::string("\x0b\x00\x00x", 4);  // last block, RLE, 1 byte
  const std::string header = HeaderFromMeta(TraceMeta{}).SerializeAsString();
  HandMadeTrace bomb(kTraceFormatMajor, kTraceFormatMinor);
  bomb.Record(framing::RecordType::kHeader, header);
  bomb.Record(framing::RecordType::kChunk, frame);
  // No footer: the reader finds the chunk by walking the records.
  const size_t chunk_at = framing::kPreambleBytes + framing::kRecordHeaderBytes + header.size();
  std::string bytes = bomb.Finish(proto::TraceFooter{});
  bytes.resize(chunk_at + framing::kRecordHeaderBytes + frame.size());

  TempFile file("bomb.pecan");
  WriteFileBytes(file.path(), bytes);
  pecan::ScopedWarningCapture warnings;
  CHECK_THROWS_WITH(ReadTrace(file.path()),
                    file.path() + ":byte " + std::to_string(chunk_at) +
                        ": chunk: implausible decoded size 1073741824 for 17 compressed bytes");
}
