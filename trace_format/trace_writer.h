// Streaming writer of .pecan files: events are buffered into column-wise chunks, each chunk is
// one independent zstd frame, and Finish() writes the footer (counts, chunk index, checksum).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "trace_format/trace.h"

namespace pecan {

struct TraceWriterOptions {
  uint32_t chunk_events = 1u << 16;  // events per chunk; bounds the writer's memory
  int zstd_level = 3;
};

class TraceWriter {
 public:
  // Creates (truncates) `path` and writes the header. Throws PecanError when it cannot.
  TraceWriter(const std::string& path, const TraceMeta& meta, const TraceWriterOptions& options = {});
  ~TraceWriter();  // finishes the file (with an unknown exit) if Finish() was not called
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Table entries. Each must be added before the first event that refers to it; it travels in
  // the next chunk written and again in the footer. Ids are dense and assigned by the caller.
  void AddThread(ThreadId id, const ThreadInfo& info);
  void AddSite(SiteId id, const SiteInfo& info);
  void AddModule(const ModuleInfo& module);
  void AddName(const AddressName& name);

  void Append(const Event& event);
  void Append(const Event* events, size_t count);

  // Ends the current chunk (if it holds events) and writes it out, so everything appended so
  // far survives if the process dies now.
  void Flush();

  // Flushes, writes the footer and closes the file. Further calls are errors.
  void Finish(const ProgramExitInfo& exit = {}, uint64_t dropped_events = 0);

  uint64_t events_written() const;
  uint64_t bytes_written() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Writes a whole in-memory trace.
void WriteTrace(const std::string& path, const Trace& trace, const TraceWriterOptions& options = {});

}  // namespace pecan
