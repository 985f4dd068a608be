// Streaming reader of .pecan files: chunk by chunk in bounded memory, random access by chunk,
// or the whole trace into memory. Truncated files yield every complete chunk plus a warning;
// corrupt or foreign files throw PecanError naming the file and byte offset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

// Where a batch's columns start: a loop over the events that calls code which may write anywhere
// holds these in registers, not the vectors' pointers read again for every event.
struct EventColumns {
  const ThreadId* thread = nullptr;
  const EventKind* kind = nullptr;
  const uint8_t* flags = nullptr;
  const uint32_t* size = nullptr;
  const uint64_t* addr = nullptr;
  const SiteId* site = nullptr;
  const uint16_t* repeats_before = nullptr;  // null when the chunk has none

  Event event(size_t i) const {
    return Event{thread[i],
                 kind[i],
                 flags[i],
                 size[i],
                 addr[i],
                 site[i],
                 repeats_before == nullptr ? uint16_t{0} : repeats_before[i]};
  }
};

// The events of one chunk, as columns (same layout as Trace's columns).
struct EventBatch {
  EventIndex first_event = 0;
  std::vector<ThreadId> thread;
  std::vector<EventKind> kind;
  std::vector<uint8_t> flags;
  std::vector<uint32_t> size;
  std::vector<uint64_t> addr;
  std::vector<SiteId> site;
  std::vector<uint16_t> repeats_before;  // empty when the chunk has none, else one per event

  size_t count() const { return kind.size(); }
  // No events, starting at `first`.
  void Clear(EventIndex first) {
    *this = EventBatch{};
    first_event = first;
  }
  EventColumns columns() const {
    return EventColumns{thread.data(),
                        kind.data(),
                        flags.data(),
                        size.data(),
                        addr.data(),
                        site.data(),
                        repeats_before.empty() ? nullptr : repeats_before.data()};
  }
  Event event(size_t i) const { return columns().event(i); }
};

class TraceReader {
 public:
  // Opens the file and reads the header (and the footer, when present). Throws PecanError.
  // With `log_warnings` false, a truncated file's warnings are only kept (warnings()), not
  // logged: for a file read more than once.
  explicit TraceReader(const std::string& path, bool log_warnings = true);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  const TraceMeta& meta() const;

  // Sequential streaming: fills `batch` with the next chunk; false at the end. On a truncated
  // or damaged tail it stops after the last complete chunk and records a warning.
  bool Next(EventBatch& batch);
  // The same, but at most `max` events at a time: a chunk comes in parts, each decoded when asked
  // for, so a reader that handles the events right away finds them still in the cache.
  bool NextEvents(EventBatch& batch, uint64_t max);

  // Random access (uses the footer's chunk index, or a scan of the file when it has none).
  size_t chunk_count();
  void ReadChunk(size_t index, EventBatch& batch);
  // The number of chunk `index`'s first event, from the index (index < chunk_count()).
  uint64_t chunk_first_event(size_t index);

  // Tables: complete from the footer; for a truncated file, what the chunks read so far held.
  const std::vector<ThreadInfo>& threads() const;
  const std::vector<SiteInfo>& sites() const;
  const std::vector<ModuleInfo>& modules() const;
  const std::vector<AddressName>& names() const;

  bool complete() const;  // footer present and checksum verified
  // The event count the footer states (checked against its chunk index when the file was
  // opened); nullopt when the file has no footer (count by reading it with Next).
  std::optional<uint64_t> footer_event_count() const;
  const std::vector<std::string>& warnings() const;
  uint64_t file_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads a whole trace into memory. Warnings (truncation) go to the logger. With `show_progress`,
// a progress bar on a terminal (and a line every 30 s in a log) counts the events read.
Trace ReadTrace(const std::string& path, bool show_progress = false);
// The same from an open reader (whose warnings() and complete() tell about the file after).
Trace ReadTrace(TraceReader& reader, bool show_progress = false);

// A hex content hash of a trace file, used to tie clips and reports to their trace.
std::string TraceContentHash(const std::string& path);

}  // namespace pecan
