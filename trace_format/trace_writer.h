// Streaming writer of .pecan files: events are buffered into column-wise chunks, each chunk is
// one independent zstd frame, and Finish() writes the footer (counts, chunk index, checksum).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "trace_format/chunk_builder.h"
#include "trace_format/trace.h"

namespace pecan {

struct TraceWriterOptions {
  uint32_t chunk_events = 1u << 16;  // events per chunk; bounds the writer's memory
  int zstd_level = 3;
};

class TraceWriter {
 public:
  // Creates (truncates) `path` and writes the header. Throws PecanError when it cannot.
  TraceWriter(const std::string& path, const TraceMeta& meta,
              const TraceWriterOptions& options = {});
  ~TraceWriter();  // finishes the file (with an unknown exit) if Finish() was not called
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Table entries. Each must be added before the first event that refers to it; it travels in
  // the next chunk written and again in the footer. Ids are dense and assigned by the caller.
  void AddThread(ThreadId id, const ThreadInfo& info);
  void AddSite(SiteId id, const SiteInfo& info);
  void AddModule(const ModuleInfo& module);
  void AddName(const AddressName& name);

  // Appends one event to the chunk being built (encoding it on the spot) and writes the chunk
  // out when it is full. An event naming a thread or site not added first throws PecanError.
  void Append(ThreadId thread, EventKind kind, uint8_t flags, uint32_t size, uint64_t addr,
              SiteId site, uint16_t repeats_before = 0) {
    // The common case, inline: another event of the same thread as the one before.
    if (thread != chunk_.run_thread() || site >= site_limit_) [[unlikely]] {
      AppendChecked(thread, kind, flags, size, addr, site, repeats_before);
      return;
    }
    chunk_.Add(kind, flags, size, addr, site, repeats_before);
    if (chunk_.full()) [[unlikely]]
      ChunkFull();
  }
  void Append(const Event& e) {
    Append(e.thread, e.kind, e.flags, e.size, e.addr, e.site, e.repeats_before);
  }
  void Append(const Event* events, size_t count) {
    for (size_t i = 0; i < count; ++i) Append(events[i]);
  }

  // Appends events of `thread` for as long as `next()` returns one (a std::optional<RunEvent>):
  // for a caller with long runs of one thread (the recorder draining a thread's ring), whose
  // loop then keeps the chunk's write positions in registers. Each event is checked as Append
  // checks it. `next` may add sites, but must not append or flush; should it throw, the chunk
  // stays consistent but loses events this call took from it.
  template <typename Next>
  void AppendRun(ThreadId thread, Next&& next) {
    std::optional<RunEvent> e = next();
    while (e) {
      // One event the checked way: it opens the run, or follows a full chunk, or names a site
      // added since the loop below started (or not added at all, which throws).
      Append(thread, e->kind, e->flags, e->size, e->addr, e->site, e->repeats_before);
      if (chunk_.run_thread() != thread) {  // that event filled the chunk, now written out
        e = next();
        continue;
      }
      // Then the events after it inline, while the chunk has room and their sites are known.
      const SiteId site_limit = site_limit_;
      ChunkBuilder::Cursor cursor = chunk_.OpenCursor(site_limit);
      while ((e = next()) && e->site < site_limit && !cursor.full())
        cursor.Add(e->kind, e->flags, e->size, e->addr, e->site, e->repeats_before);
      chunk_.CloseCursor(cursor);
      if (chunk_.full()) ChunkFull();
    }
  }

  // Ends the current chunk (if it holds events) and writes it out, so everything appended so
  // far survives if the process dies now.
  void Flush();

  // Flushes, writes the footer and closes the file. Further calls are errors. `blocked` is the
  // wait-for state of a run the recorder ended because every thread was blocked (its threads
  // and sites must have been added).
  void Finish(const ProgramExitInfo& exit = {}, uint64_t dropped_events = 0,
              const std::vector<BlockedThreadInfo>& blocked = {});

  uint64_t events_written() const;
  uint64_t bytes_written() const;

 private:
  struct Impl;

  // Append's other cases: a thread switch (a new run), a new chunk, a bad id, after Finish.
  void AppendChecked(ThreadId thread, EventKind kind, uint8_t flags, uint32_t size, uint64_t addr,
                     SiteId site, uint16_t repeats_before);
  // The chunk has no room left: write it if it has chunk_events events, else grow it.
  void ChunkFull();
  // Sets site_limit_: the number of sites while the inline path may be taken, else 0.
  void AllowFastAppend();

  ChunkBuilder chunk_;
  // Sites added so far; 0 after Finish or while a full chunk waits to be written, so that every
  // Append takes the checked path.
  SiteId site_limit_ = 0;
  std::unique_ptr<Impl> impl_;
};

// Writes a whole in-memory trace.
void WriteTrace(const std::string& path, const Trace& trace,
                const TraceWriterOptions& options = {});

}  // namespace pecan
