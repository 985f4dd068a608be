// TraceReader: validates the preamble, header and (when present) footer of a .pecan file, then
// decodes chunk records one at a time, sequentially or by index, in bounded memory.
#include "trace_format/trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "trace_format/chunk_codec.h"
#include "trace_format/chunk_view.h"
#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/progress.h"
#include "trace_format/proto_conversion.h"
#include "trace_format/record_framing.h"
#include "trace_format/version.h"
#include "trace_format/xxhash64.h"
#include "trace_format/zstd_frame.h"

namespace pecan {
namespace {

using framing::RecordHeader;
using framing::RecordType;

struct ChunkLocation {
  uint64_t offset = 0;  // of the record header
  uint64_t first_event = 0;
  uint32_t count = 0;
};

// What ReadRecordAt found at an offset.
enum class RecordStatus { kRecord, kEnd, kTruncated };

}  // namespace

struct TraceReader::Impl {
  std::string path;
  int fd = -1;
  uint64_t file_size = 0;
  TraceMeta meta;
  TraceTables tables;
  std::vector<std::string> warnings;
  bool log_warnings = true;

  bool has_footer = false;
  uint64_t footer_event_count = 0;
  uint64_t footer_checksum = 0;
  uint64_t first_record = 0;  // offset just past the header record
  uint64_t data_end = 0;      // chunk records end here: the footer's offset, else the file size
  std::vector<ChunkLocation> index;
  bool index_known = false;
  // Table entries from chunks are applied once, in file order, whoever reads the chunk first.
  std::optional<uint64_t> tables_applied_through;

  // Sequential reading.
  uint64_t next_offset = 0;
  bool sequential_done = false;
  uint64_t sequential_events = 0;
  size_t sequential_chunks = 0;
  Xxh64Stream payload_hash;

  // Buffers reused for every chunk: memory stays bounded by the largest chunk.
  std::string payload;
  ZSTD_DCtx* zstd = nullptr;
  std::string decoded;  // the chunk `chunk` views
  ChunkView chunk;
  ChunkDecoder decoder;
  // The sequential reader's chunk, decoded a slice at a time (NextEvents): its own bytes, which
  // random access in between leaves alone.
  std::string sequential_decoded;
  ChunkView sequential_chunk;
  ChunkDecoder sequential_decoder;
  bool sequential_started = false;
  bool warned_unknown_kinds = false;
  bool truncation_warned = false;

  ~Impl() {
    if (zstd) ZSTD_freeDCtx(zstd);
    if (fd >= 0) ::close(fd);
  }

  std::string Where(uint64_t offset) const { return path + ":byte " + std::to_string(offset); }
  [[noreturn]] void Corrupt(uint64_t offset, const std::string& what) const {
    throw PecanError(Where(offset) + ": " + what);
  }

  void Warn(std::string message) {
    if (log_warnings) LogWarning(message);
    warnings.push_back(std::move(message));
  }

  void ReadExact(uint64_t offset, void* out, size_t length) {
    auto* p = static_cast<char*>(out);
    while (length > 0) {
      ssize_t n = ::pread(fd, p, length, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        throw PecanError(Where(offset) + ": read failed: " +
                         (n < 0 ? std::strerror(errno) : "unexpected end of file"));
      p += n;
      offset += static_cast<uint64_t>(n);
      length -= static_cast<size_t>(n);
    }
  }

  // Reads the record at `offset` if it lies wholly before `end`, checking its checksum.
  // kTruncated: the file ends inside it (only possible without a footer).
  RecordStatus ReadRecordAt(uint64_t offset, uint64_t end, RecordHeader& header) {
    if (offset >= end) return RecordStatus::kEnd;
    if (end - offset < framing::kRecordHeaderBytes) {
      if (has_footer) Corrupt(offset, "a partial record header lies before the footer");
      return RecordStatus::kTruncated;
    }
    unsigned char bytes[framing::kRecordHeaderBytes];
    ReadExact(offset, bytes, sizeof bytes);
    header = framing::DecodeRecordHeader(bytes);
    uint64_t room = end - offset - framing::kRecordHeaderBytes;
    if (header.length > framing::kMaxRecordBytes)
      Corrupt(offset, "record length " + std::to_string(header.length) + " is implausible");
    if (header.length > room) {
      if (has_footer) Corrupt(offset, "record overruns the footer");
      return RecordStatus::kTruncated;
    }
    payload.resize(header.length);
    ReadExact(offset + framing::kRecordHeaderBytes, payload.data(), header.length);
    if (framing::RecordChecksum(header.type, payload.data(), header.length) != header.checksum)
      Corrupt(offset, "record checksum mismatch (the file is damaged)");
    return RecordStatus::kRecord;
  }

  void Open() {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw PecanError(path + ": cannot open: " + std::strerror(errno));
    struct stat st;
    if (::fstat(fd, &st) != 0) throw PecanError(path + ": cannot stat: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw PecanError(path + ": not a regular file");
    file_size = static_cast<uint64_t>(st.st_size);
    zstd = ZSTD_createDCtx();

    unsigned char preamble[framing::kPreambleBytes] = {};
    size_t have = static_cast<size_t>(std::min<uint64_t>(file_size, sizeof preamble));
    ReadExact(0, preamble, have);
    if (file_size == 0) throw PecanError(path + ": empty file (not a pecan trace)");
    if (std::memcmp(preamble, framing::kMagic, std::min(have, sizeof framing::kMagic)) != 0)
      Corrupt(0, "not a pecan trace (bad magic)");
    if (have < sizeof preamble) Corrupt(file_size, "truncated inside the file preamble");
    framing::Preamble version = *framing::DecodePreamble(preamble);
    std::string reads =
        "this pecan reads formats 1.x to " + std::to_string(kTraceFormatMajor) + ".x";
    std::string format =
        "format " + std::to_string(version.major) + "." + std::to_string(version.minor);
    if (version.major > kTraceFormatMajor)
      Corrupt(8, "written by a newer pecan (" + format + "); " + reads);
    if (version.major < 1) Corrupt(8, format + " is not supported; " + reads);

    RecordHeader header;
    uint64_t offset = framing::kPreambleBytes;
    if (ReadRecordAt(offset, file_size, header) != RecordStatus::kRecord)
      Corrupt(file_size, "truncated inside the header record");
    if (header.type != static_cast<uint8_t>(RecordType::kHeader))
      Corrupt(offset, "expected the header record");
    proto::TraceHeader trace_header;
    if (!trace_header.ParseFromString(payload)) Corrupt(offset, "header record does not parse");
    MetaFromHeader(trace_header, meta);
    meta.format_major = version.major;
    meta.format_minor = version.minor;
    for (const auto& m : trace_header.modules()) tables.modules.push_back(ModuleFromProto(m));
    first_record = offset + framing::kRecordHeaderBytes + header.length;
    next_offset = first_record;
    data_end = file_size;
    ReadFooterIfPresent();
  }

  void ReadFooterIfPresent() {
    if (file_size < first_record + framing::kRecordHeaderBytes + framing::kTrailerBytes) return;
    unsigned char trailer[framing::kTrailerBytes];
    uint64_t trailer_offset = file_size - framing::kTrailerBytes;
    ReadExact(trailer_offset, trailer, sizeof trailer);
    std::optional<uint64_t> footer_offset = framing::DecodeTrailer(trailer);
    if (!footer_offset) return;  // unfinished file: Next() recovers what is there
    uint64_t at = *footer_offset;
    if (at < first_record || at > trailer_offset - framing::kRecordHeaderBytes)
      Corrupt(trailer_offset, "trailer points outside the file");
    RecordHeader header;
    if (ReadRecordAt(at, trailer_offset, header) != RecordStatus::kRecord ||
        header.type != static_cast<uint8_t>(RecordType::kFooter) ||
        at + framing::kRecordHeaderBytes + header.length != trailer_offset)
      Corrupt(at, "no footer record where the trailer points");
    proto::TraceFooter footer;
    if (!footer.ParseFromString(payload)) Corrupt(at, "footer record does not parse");

    uint64_t expected_first = 0;
    uint64_t previous_end = first_record;
    index.reserve(static_cast<size_t>(footer.chunks_size()));
    for (const auto& c : footer.chunks()) {
      if (c.file_offset() < previous_end || c.file_offset() > at ||
          at - c.file_offset() < framing::kRecordHeaderBytes ||
          c.compressed_bytes() > at - c.file_offset() - framing::kRecordHeaderBytes ||
          c.first_event() != expected_first || c.count() > framing::kMaxChunkEvents)
        Corrupt(at, "footer chunk index is inconsistent");
      previous_end = c.file_offset() + framing::kRecordHeaderBytes + c.compressed_bytes();
      expected_first += c.count();
      index.push_back(ChunkLocation{c.file_offset(), c.first_event(), c.count()});
    }
    if (expected_first != footer.event_count())
      Corrupt(at, "footer event count disagrees with its chunk index");
    TraceTables complete;
    ApplyTableEntries(footer.threads(), footer.sites(), footer.modules(), footer.names(), complete,
                      Where(at));
    if (footer.modules_size() == 0) complete.modules = tables.modules;  // header's, if any
    tables = std::move(complete);

    has_footer = true;
    index_known = true;
    data_end = at;
    footer_event_count = footer.event_count();
    footer_checksum = footer.checksum();
    AdoptFooterMeta(footer, at);
  }

  // The footer's facts about the run; `tables` must already hold the footer's tables.
  void AdoptFooterMeta(const proto::TraceFooter& footer, uint64_t at) {
    meta.exit.known = footer.has_exit();
    meta.exit.exited = footer.exit().exited();
    meta.exit.exit_status = footer.exit().exit_status();
    meta.exit.signal = footer.exit().signal();
    meta.dropped_events = footer.dropped_events();
    meta.blocked_threads.clear();
    for (const proto::BlockedThread& blocked : footer.blocked_threads())
      meta.blocked_threads.push_back(BlockedFromProto(blocked, tables, Where(at)));
  }

  // Decompresses the chunk record in `payload` (read from `offset`) into `bytes` and parses it
  // into `into`, which views `bytes`.
  void ParseChunk(uint64_t offset, std::string& bytes, ChunkView& into) {
    const std::string error = DecompressZstdFrame(zstd, payload.data(), payload.size(),
                                                  framing::kMaxChunkDecodedBytes, bytes);
    if (!error.empty()) Corrupt(offset, "chunk: " + error);
    if (!into.Parse(bytes)) Corrupt(offset, "chunk does not parse");
    if (!has_footer && (!tables_applied_through || offset > *tables_applied_through)) {
      const proto::EventChunk& entries = into.tables;
      ApplyTableEntries(entries.new_threads(), entries.new_sites(), entries.new_modules(),
                        entries.new_names(), tables, Where(offset));
      tables_applied_through = offset;
    }
  }

  // Decompresses and decodes the chunk record in `payload` (read from `offset`).
  void DecodeChunk(uint64_t offset, EventBatch& batch) {
    ParseChunk(offset, decoded, chunk);
    decoder.Decode(chunk, tables.threads.size(), tables.sites.size(), batch, Where(offset),
                   meta.format_major);
    WarnUnknownKinds(decoder);
  }

  void WarnUnknownKinds(const ChunkDecoder& d) {
    if (d.saw_unknown_kinds() && !warned_unknown_kinds) {
      warned_unknown_kinds = true;
      Warn(path +
           ": holds event kinds this pecan does not know (written by a newer pecan, "
           "format " +
           std::to_string(meta.format_major) + "." + std::to_string(meta.format_minor) +
           "); they are kept but not analyzed");
    }
  }

  void WarnTruncated(uint64_t events, size_t chunks, uint64_t good_end, const char* why) {
    if (truncation_warned) return;
    truncation_warned = true;
    Warn(path + ": " + why + " at byte " + std::to_string(good_end) + " of " +
         std::to_string(file_size) + "; recovered " + std::to_string(events) + " events in " +
         std::to_string(chunks) + " complete chunks");
  }

  // A footer record found by a scan in a file whose trailer is missing: the events are all
  // there; take the exit information and stop.
  void FooterWithoutTrailer(uint64_t offset, uint64_t events, size_t chunks) {
    proto::TraceFooter footer;
    if (!footer.ParseFromString(payload)) Corrupt(offset, "footer record does not parse");
    // Its tables complete the chunks' (a blocked thread's call may be a site no event used).
    ApplyTableEntries(footer.threads(), footer.sites(), footer.modules(), footer.names(), tables,
                      Where(offset));
    AdoptFooterMeta(footer, offset);
    WarnTruncated(events, chunks, offset, "the trailer is missing (file cut after the footer)");
  }

  void EnsureIndex() {
    if (index_known) return;
    // No footer: find the chunks by walking the records (this also collects the tables).
    uint64_t offset = first_record;
    uint64_t events = 0;
    EventBatch scratch;
    while (true) {
      RecordHeader header;
      RecordStatus status = ReadRecordAt(offset, data_end, header);
      if (status != RecordStatus::kRecord) {
        WarnTruncated(events, index.size(), offset,
                      "truncated trace (no footer): the last complete record ends");
        break;
      }
      if (header.type == static_cast<uint8_t>(RecordType::kFooter)) {
        FooterWithoutTrailer(offset, events, index.size());
        break;
      }
      if (header.type == static_cast<uint8_t>(RecordType::kHeader))
        Corrupt(offset, "a second header record");
      if (header.type == static_cast<uint8_t>(RecordType::kChunk)) {
        DecodeChunk(offset, scratch);
        if (scratch.first_event != events)
          Corrupt(offset, "chunk does not continue the event sequence");
        index.push_back(ChunkLocation{offset, events, static_cast<uint32_t>(scratch.count())});
        events += scratch.count();
      }
      offset += framing::kRecordHeaderBytes + header.length;
    }
    index_known = true;
  }

  // Chunk number `number` of the index (made first if need be); throws PecanError past its end.
  const ChunkLocation& IndexedChunk(size_t number) {
    EnsureIndex();
    if (number >= index.size())
      throw PecanError(path + ": chunk " + std::to_string(number) +
                       " does not exist (the trace has " + std::to_string(index.size()) + ")");
    return index[number];
  }
};

TraceReader::TraceReader(const std::string& path, bool log_warnings)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->log_warnings = log_warnings;
  impl_->Open();
}

TraceReader::~TraceReader() = default;

const TraceMeta& TraceReader::meta() const {
  return impl_->meta;
}

bool TraceReader::Next(EventBatch& batch) {
  return NextEvents(batch, ~uint64_t{0});
}

bool TraceReader::NextEvents(EventBatch& batch, uint64_t max) {
  Impl& r = *impl_;
  if (r.sequential_started && r.sequential_decoder.DecodeNext(batch, max)) {
    r.WarnUnknownKinds(r.sequential_decoder);
    return true;
  }
  r.sequential_started = false;
  while (!r.sequential_done) {
    RecordHeader header;
    uint64_t offset = r.next_offset;
    RecordStatus status = r.ReadRecordAt(offset, r.data_end, header);
    if (status == RecordStatus::kEnd && r.has_footer) {
      if (r.sequential_events != r.footer_event_count || r.sequential_chunks != r.index.size())
        r.Corrupt(offset, "the chunks disagree with the footer's counts");
      if (r.payload_hash.Digest() != r.footer_checksum)
        r.Corrupt(offset, "the chunks do not match the footer's checksum");
      r.sequential_done = true;
      break;
    }
    if (status != RecordStatus::kRecord) {
      r.sequential_done = true;
      r.WarnTruncated(r.sequential_events, r.sequential_chunks, offset,
                      "truncated trace (no footer): the last complete record ends");
      break;
    }
    r.next_offset = offset + framing::kRecordHeaderBytes + header.length;
    switch (static_cast<RecordType>(header.type)) {
      case RecordType::kChunk: {
        if (r.has_footer && (r.sequential_chunks >= r.index.size() ||
                             r.index[r.sequential_chunks].offset != offset))
          r.Corrupt(offset, "chunk is not in the footer's index");
        r.payload_hash.Update(r.payload.data(), r.payload.size());
        r.ParseChunk(offset, r.sequential_decoded, r.sequential_chunk);
        r.sequential_decoder.Start(r.sequential_chunk, r.tables.threads.size(),
                                   r.tables.sites.size(), r.Where(offset), r.meta.format_major);
        if (r.sequential_chunk.first_event != r.sequential_events)
          r.Corrupt(offset, "chunk does not continue the event sequence");
        r.sequential_events += r.sequential_chunk.count;
        ++r.sequential_chunks;
        r.sequential_started = true;
        if (!r.sequential_decoder.DecodeNext(batch, max))
          batch.Clear(r.sequential_chunk.first_event);  // an empty chunk
        r.WarnUnknownKinds(r.sequential_decoder);
        return true;
      }
      case RecordType::kFooter:
        if (r.has_footer) r.Corrupt(offset, "a footer record before the footer");
        r.sequential_done = true;
        r.FooterWithoutTrailer(offset, r.sequential_events, r.sequential_chunks);
        break;
      case RecordType::kHeader:
        r.Corrupt(offset, "a second header record");
      default:
        break;  // a record type from a newer minor version: skipped
    }
  }
  return false;
}

size_t TraceReader::chunk_count() {
  impl_->EnsureIndex();
  return impl_->index.size();
}

void TraceReader::ReadChunk(size_t index, EventBatch& batch) {
  Impl& r = *impl_;
  const ChunkLocation& where = r.IndexedChunk(index);
  RecordHeader header;
  if (r.ReadRecordAt(where.offset, r.data_end, header) != RecordStatus::kRecord ||
      header.type != static_cast<uint8_t>(RecordType::kChunk))
    r.Corrupt(where.offset, "no chunk record where the index points");
  r.DecodeChunk(where.offset, batch);
  if (batch.first_event != where.first_event || batch.count() != where.count)
    r.Corrupt(where.offset, "chunk disagrees with the chunk index");
}

uint64_t TraceReader::chunk_first_event(size_t index) {
  return impl_->IndexedChunk(index).first_event;
}

const std::vector<ThreadInfo>& TraceReader::threads() const {
  return impl_->tables.threads;
}
const std::vector<SiteInfo>& TraceReader::sites() const {
  return impl_->tables.sites;
}
const std::vector<ModuleInfo>& TraceReader::modules() const {
  return impl_->tables.modules;
}
const std::vector<AddressName>& TraceReader::names() const {
  return impl_->tables.names;
}
bool TraceReader::complete() const {
  return impl_->has_footer;
}
std::optional<uint64_t> TraceReader::footer_event_count() const {
  if (!impl_->has_footer) return std::nullopt;
  return impl_->footer_event_count;
}
const std::vector<std::string>& TraceReader::warnings() const {
  return impl_->warnings;
}
uint64_t TraceReader::file_bytes() const {
  return impl_->file_size;
}

Trace ReadTrace(const std::string& path, bool show_progress) {
  TraceReader reader(path);
  return ReadTrace(reader, show_progress);
}

Trace ReadTrace(TraceReader& reader, bool show_progress) {
  Trace trace;
  trace.meta = reader.meta();
  const uint64_t expected = reader.footer_event_count().value_or(0);
  // Columns of the stated size at once: growing them by doubling would hold up to twice the
  // trace at the moment of a copy. A count no file of this size can hold is not believed.
  if (expected > 0 && expected / 256 <= reader.file_bytes()) trace.reserve(expected);
  std::optional<ProgressReporter> progress;
  if (show_progress && expected > 0) {
    progress.emplace("reading the trace", expected);
    progress->KeepAlive(kKeepAliveLogSeconds);
  }
  EventBatch batch;
  while (reader.Next(batch)) {
    if (progress) progress->Update(trace.size_events() + batch.count());
    trace.AppendRepeats(batch.repeats_before, batch.count());
    trace.thread.insert(trace.thread.end(), batch.thread.begin(), batch.thread.end());
    trace.kind.insert(trace.kind.end(), batch.kind.begin(), batch.kind.end());
    trace.flags.insert(trace.flags.end(), batch.flags.begin(), batch.flags.end());
    trace.size.insert(trace.size.end(), batch.size.begin(), batch.size.end());
    trace.addr.insert(trace.addr.end(), batch.addr.begin(), batch.addr.end());
    trace.site.insert(trace.site.end(), batch.site.begin(), batch.site.end());
  }
  trace.meta = reader.meta();  // a footer found late (no trailer) may have added the exit
  trace.threads = reader.threads();
  trace.sites = reader.sites();
  trace.modules = reader.modules();
  trace.names = reader.names();
  return trace;
}

std::string TraceContentHash(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw PecanError(path + ": cannot open: " + std::strerror(errno));
  Xxh64Stream hash;
  std::vector<char> buffer(1 << 20);
  while (true) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int error = errno;
      ::close(fd);
      throw PecanError(path + ": read failed: " + std::strerror(error));
    }
    if (n == 0) break;
    hash.Update(buffer.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash.Digest()));
  return hex;
}

}  // namespace pecan
