// TraceWriter: encodes events into the columns of one chunk as they arrive (chunk_builder.h),
// compresses each full chunk into one zstd frame and appends it as a record; Finish() adds the
// footer and trailer.
#include "trace_format/trace_writer.h"

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trace_format/error.h"
#include "trace_format/log.h"
#include "trace_format/proto_conversion.h"
#include "trace_format/record_framing.h"
#include "trace_format/version.h"
#include "trace_format/xxhash64.h"

namespace pecan {
namespace {

// A chunk's buffers start with room for this many events and double up to chunk_events.
constexpr uint32_t kInitialChunkCapacity = 4096;

}  // namespace

struct TraceWriter::Impl {
  std::string path;
  TraceWriterOptions options;
  std::FILE* file = nullptr;
  bool finished = false;
  uint64_t offset = 0;         // bytes written so far
  uint64_t events_before = 0;  // events in the chunks written so far

  TraceTables tables;
  // Table entries added since the last chunk was written.
  std::vector<ThreadId> pending_threads;
  std::vector<SiteId> pending_sites;
  size_t modules_written = 0;
  size_t names_written = 0;
  size_t threads_covered = 0;  // ids below this were written in some chunk
  size_t sites_covered = 0;

  proto::EventChunk new_entries;  // fields 10-13 of the next chunk: its new table entries
  ByteBuffer serialized;
  ByteBuffer compressed;
  ZSTD_CCtx* zstd = nullptr;
  // A write failed and its error was thrown: the destructor does not try to finish the file
  // (which would fail again and repeat the error as a warning).
  bool failed = false;
  Xxh64Stream payload_hash;
  proto::TraceFooter footer;  // the chunk index grows here; tables are added at Finish

  ~Impl() {
    if (zstd) ZSTD_freeCCtx(zstd);
    if (file) std::fclose(file);
  }

  [[noreturn]] void FailIo(const char* what) {
    failed = true;
    throw PecanError(path + ": cannot " + what + ": " + std::strerror(errno));
  }

  void WriteBytes(const void* data, size_t length) {
    if (length > 0 && std::fwrite(data, 1, length, file) != length) FailIo("write");
    offset += length;
  }

  void WriteRecord(framing::RecordType type, const void* payload, size_t length) {
    framing::RecordHeader header;
    header.type = static_cast<uint8_t>(type);
    header.length = static_cast<uint32_t>(length);
    header.checksum = framing::RecordChecksum(header.type, payload, header.length);
    unsigned char bytes[framing::kRecordHeaderBytes];
    framing::EncodeRecordHeader(bytes, header);
    WriteBytes(bytes, sizeof bytes);
    WriteBytes(payload, length);
  }
  void WriteRecord(framing::RecordType type, const std::string& payload) {
    WriteRecord(type, payload.data(), payload.size());
  }

  // Entries for ids in `pending`, in id order; ids never written before that leave a gap get a
  // default entry first, so a reader always sees dense ids.
  template <typename Info, typename Add>
  void EmitPending(std::vector<uint32_t>& pending, const std::vector<Info>& table, size_t& covered,
                   Add add) {
    std::sort(pending.begin(), pending.end());
    pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
    for (uint32_t id : pending) {
      for (; covered < id; ++covered) add(static_cast<uint32_t>(covered), table[covered]);
      add(id, table[id]);
      covered = std::max<size_t>(covered, id + 1);
    }
    pending.clear();
  }

  // Fills new_entries with the table entries the chunk about to be written must carry.
  void CollectNewEntries() {
    new_entries.Clear();
    EmitPending(pending_threads, tables.threads, threads_covered,
                [&](uint32_t id, const ThreadInfo& t) {
                  *new_entries.add_new_threads() = ThreadToProto(id, t);
                });
    EmitPending(pending_sites, tables.sites, sites_covered, [&](uint32_t id, const SiteInfo& s) {
      *new_entries.add_new_sites() = SiteToProto(id, s);
    });
    for (; modules_written < tables.modules.size(); ++modules_written)
      *new_entries.add_new_modules() = ModuleToProto(tables.modules[modules_written]);
    for (; names_written < tables.names.size(); ++names_written)
      *new_entries.add_new_names() = NameToProto(tables.names[names_written]);
  }

  // Encodes `chunk` as an EventChunk (its columns, then its new table entries), compresses it
  // into one zstd frame, writes it as a record and empties `chunk`.
  void WriteChunk(ChunkBuilder& chunk) {
    const uint32_t count = chunk.count();
    const size_t columns_size = chunk.Seal(events_before);
    CollectNewEntries();
    const size_t entries_size = new_entries.ByteSizeLong();
    const size_t size = columns_size + entries_size + chunk.RepeatsFieldSize();
    serialized.Reserve(size, 0);
    uint8_t* end = chunk.Encode(serialized.data());
    if (entries_size > 0) end = new_entries.SerializeWithCachedSizesToArray(end);
    end = chunk.EncodeRepeats(end);
    if (static_cast<size_t>(end - serialized.data()) != size)
      throw PecanError(path + ": internal error: chunk encoding size mismatch");

    compressed.Reserve(ZSTD_compressBound(size), 0);
    size_t n = ZSTD_compressCCtx(zstd, compressed.data(), compressed.capacity(), serialized.data(),
                                 size, options.zstd_level);
    if (ZSTD_isError(n)) throw PecanError(path + ": zstd: " + ZSTD_getErrorName(n));
    if (n > framing::kMaxRecordBytes)
      throw PecanError(path + ": chunk too large; use fewer events per chunk");

    auto* entry = footer.add_chunks();
    entry->set_file_offset(offset);
    entry->set_first_event(events_before);
    entry->set_count(count);
    entry->set_compressed_bytes(static_cast<uint32_t>(n));
    payload_hash.Update(compressed.data(), n);
    WriteRecord(framing::RecordType::kChunk, compressed.data(), n);
    events_before += count;
    chunk.Clear();
  }
};

TraceWriter::TraceWriter(const std::string& path, const TraceMeta& meta,
                         const TraceWriterOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& w = *impl_;
  w.path = path;
  w.options = options;
  if (options.chunk_events == 0 || options.chunk_events > framing::kMaxChunkEvents)
    throw PecanError(path + ": events per chunk must be between 1 and " +
                     std::to_string(framing::kMaxChunkEvents));
  if (options.zstd_level < ZSTD_minCLevel() || options.zstd_level > ZSTD_maxCLevel())
    throw PecanError(path + ": zstd level must be between " + std::to_string(ZSTD_minCLevel()) +
                     " and " + std::to_string(ZSTD_maxCLevel()));
  chunk_.Reserve(std::min(options.chunk_events, kInitialChunkCapacity));
  w.zstd = ZSTD_createCCtx();
  w.file = std::fopen(path.c_str(), "wb");
  if (!w.file) w.FailIo("create the trace file");
  unsigned char preamble[framing::kPreambleBytes];
  framing::EncodePreamble(preamble, kTraceFormatMajor, kTraceFormatMinor);
  w.WriteBytes(preamble, sizeof preamble);
  TraceMeta header_meta = meta;
  header_meta.format_major = kTraceFormatMajor;
  header_meta.format_minor = kTraceFormatMinor;
  w.WriteRecord(framing::RecordType::kHeader, HeaderFromMeta(header_meta).SerializeAsString());
}

TraceWriter::~TraceWriter() {
  if (impl_ && !impl_->finished && !impl_->failed && impl_->file) {
    try {
      Finish();
    } catch (const std::exception& e) {
      LogWarning(e.what());
    }
  }
}

void TraceWriter::AddThread(ThreadId id, const ThreadInfo& info) {
  Impl& w = *impl_;
  if (id >= (1u << 24))
    throw PecanError(w.path + ": thread id " + std::to_string(id) + " is too large");
  if (id >= w.tables.threads.size()) w.tables.threads.resize(id + 1);
  w.tables.threads[id] = info;
  w.pending_threads.push_back(id);
}

void TraceWriter::AddSite(SiteId id, const SiteInfo& info) {
  Impl& w = *impl_;
  if (id >= (1u << 30))
    throw PecanError(w.path + ": site id " + std::to_string(id) + " is too large");
  if (id >= w.tables.sites.size()) w.tables.sites.resize(id + 1);
  w.tables.sites[id] = info;
  w.pending_sites.push_back(id);
  AllowFastAppend();
}

void TraceWriter::AddModule(const ModuleInfo& module) {
  impl_->tables.modules.push_back(module);
}

void TraceWriter::AddName(const AddressName& name) {
  impl_->tables.names.push_back(name);
}

void TraceWriter::AppendChecked(ThreadId thread, EventKind kind, uint8_t flags, uint32_t size,
                                uint64_t addr, SiteId site, uint16_t repeats_before) {
  Impl& w = *impl_;
  if (w.finished) throw PecanError(w.path + ": Append after Finish");
  if (thread >= w.tables.threads.size() || site >= w.tables.sites.size())
    throw PecanError(w.path + ": event " + std::to_string(events_written()) + " names " +
                     (thread >= w.tables.threads.size() ? "thread " + std::to_string(thread)
                                                        : "site " + std::to_string(site)) +
                     ", which was not added first");
  if (chunk_.full()) ChunkFull();  // a full chunk whose write failed
  if (thread != chunk_.run_thread()) chunk_.StartRun(thread);
  chunk_.Add(kind, flags, size, addr, site, repeats_before);
  if (chunk_.full()) ChunkFull();
}

void TraceWriter::ChunkFull() {
  Impl& w = *impl_;
  // Should this throw, the chunk stays full and every Append takes the checked path, which
  // calls this again before adding.
  site_limit_ = 0;
  if (chunk_.count() < w.options.chunk_events) {
    chunk_.Reserve(std::min(2 * chunk_.capacity(), w.options.chunk_events));
  } else {
    w.WriteChunk(chunk_);
  }
  AllowFastAppend();
}

void TraceWriter::AllowFastAppend() {
  const Impl& w = *impl_;
  const bool room = !chunk_.full();
  site_limit_ = !w.finished && room ? static_cast<SiteId>(w.tables.sites.size()) : 0;
}

void TraceWriter::Flush() {
  Impl& w = *impl_;
  if (w.finished) return;
  if (chunk_.count() > 0) {
    w.WriteChunk(chunk_);
    AllowFastAppend();
  }
  if (std::fflush(w.file) != 0) w.FailIo("write");
}

void TraceWriter::Finish(const ProgramExitInfo& exit, uint64_t dropped_events,
                         const std::vector<BlockedThreadInfo>& blocked) {
  Impl& w = *impl_;
  if (w.finished) throw PecanError(w.path + ": Finish called twice");
  if (chunk_.count() > 0) w.WriteChunk(chunk_);
  w.finished = true;
  AllowFastAppend();

  proto::TraceFooter& f = w.footer;
  f.set_event_count(w.events_before);
  f.set_checksum(w.payload_hash.Digest());
  for (size_t i = 0; i < w.tables.threads.size(); ++i)
    *f.add_threads() = ThreadToProto(static_cast<ThreadId>(i), w.tables.threads[i]);
  for (size_t i = 0; i < w.tables.sites.size(); ++i)
    *f.add_sites() = SiteToProto(static_cast<SiteId>(i), w.tables.sites[i]);
  for (const auto& m : w.tables.modules) *f.add_modules() = ModuleToProto(m);
  for (const auto& n : w.tables.names) *f.add_names() = NameToProto(n);
  if (exit.known) {
    f.mutable_exit()->set_exited(exit.exited);
    f.mutable_exit()->set_exit_status(exit.exit_status);
    f.mutable_exit()->set_signal(exit.signal);
  }
  f.set_dropped_events(dropped_events);
  for (const BlockedThreadInfo& thread : blocked) *f.add_blocked_threads() = BlockedToProto(thread);

  uint64_t footer_offset = w.offset;
  w.WriteRecord(framing::RecordType::kFooter, f.SerializeAsString());
  unsigned char trailer[framing::kTrailerBytes];
  framing::EncodeTrailer(trailer, footer_offset);
  w.WriteBytes(trailer, sizeof trailer);
  std::FILE* file = w.file;
  w.file = nullptr;
  if (std::fclose(file) != 0) w.FailIo("close");
}

uint64_t TraceWriter::events_written() const {
  return impl_->events_before + chunk_.count();
}
uint64_t TraceWriter::bytes_written() const {
  return impl_->offset;
}

void WriteTrace(const std::string& path, const Trace& trace, const TraceWriterOptions& options) {
  TraceWriter writer(path, trace.meta, options);
  for (size_t i = 0; i < trace.threads.size(); ++i)
    writer.AddThread(static_cast<ThreadId>(i), trace.threads[i]);
  for (size_t i = 0; i < trace.sites.size(); ++i)
    writer.AddSite(static_cast<SiteId>(i), trace.sites[i]);
  for (const auto& m : trace.modules) writer.AddModule(m);
  for (const auto& n : trace.names) writer.AddName(n);
  for (EventIndex i = 0; i < trace.size_events(); ++i) writer.Append(trace.event(i));
  writer.Finish(trace.meta.exit, trace.meta.dropped_events, trace.meta.blocked_threads);
}

}  // namespace pecan
