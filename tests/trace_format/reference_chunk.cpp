// The reference column encoding, written as directly as FORMAT.md describes it.
#include "reference_chunk.h"

#include <cstring>
#include <map>
#include <memory>

#include "trace_format/chunk_view.h"
#include "trace_format/error.h"

namespace pecan::testing {

EventBatch BatchOf(const Trace& t, size_t begin, size_t end, uint64_t first_event) {
  EventBatch batch;
  batch.first_event = first_event;
  for (size_t i = begin; i < end; ++i) {
    batch.thread.push_back(t.thread[i]);
    batch.kind.push_back(t.kind[i]);
    batch.flags.push_back(t.flags[i]);
    batch.size.push_back(t.size[i]);
    batch.addr.push_back(t.addr[i]);
    batch.site.push_back(t.site[i]);
  }
  for (size_t i = begin; i < end; ++i) {
    if (t.RepeatsBefore(i) == 0) continue;
    for (size_t j = begin; j < end; ++j) batch.repeats_before.push_back(t.RepeatsBefore(j));
    break;
  }
  return batch;
}

proto::EventChunk ReferenceChunk(const EventBatch& events, uint32_t format_major) {
  proto::EventChunk chunk;
  const size_t n = events.count();
  chunk.set_first_event(events.first_event);
  chunk.set_count(static_cast<uint32_t>(n));
  chunk.mutable_kind()->assign(reinterpret_cast<const char*>(events.kind.data()), n);
  chunk.mutable_flags()->assign(reinterpret_cast<const char*>(events.flags.data()), n);
  std::map<ThreadId, std::pair<uint64_t, uint32_t>> previous;  // thread -> (addr, site)
  std::map<SiteId, uint64_t> previous_at_site;                 // format 2: site -> addr
  for (size_t i = 0; i < n; ++i) {
    const ThreadId t = events.thread[i];
    if (i == 0 || events.thread[i - 1] != t) {
      chunk.add_thread_run_thread(t);
      chunk.add_thread_run_length(0);
    }
    const int run = chunk.thread_run_length_size() - 1;
    chunk.set_thread_run_length(run, chunk.thread_run_length(run) + 1);
    auto& [addr, site] = previous[t];
    uint64_t& site_addr = previous_at_site[events.site[i]];
    chunk.add_addr_delta(
        static_cast<int64_t>(events.addr[i] - (format_major >= 2 ? site_addr : addr)));
    site_addr = events.addr[i];
    chunk.add_site_delta(static_cast<int64_t>(events.site[i]) - static_cast<int64_t>(site));
    chunk.add_size(events.size[i]);
    addr = events.addr[i];
    site = events.site[i];
  }
  for (uint16_t repeats : events.repeats_before) chunk.add_repeats_before(repeats);
  return chunk;
}

void DecodeChunkBytes(ChunkDecoder& decoder, std::string_view bytes, size_t thread_count,
                      size_t site_count, EventBatch& batch, const std::string& where,
                      uint32_t format_major) {
  const auto exact = std::make_unique<char[]>(bytes.size());
  if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
  ChunkView view;
  if (!view.Parse(std::string_view(exact.get(), bytes.size())))
    throw PecanError(where + ": chunk does not parse");
  decoder.Decode(view, thread_count, site_count, batch, where, format_major);
}

void DecodeChunk(ChunkDecoder& decoder, const proto::EventChunk& chunk, size_t thread_count,
                 size_t site_count, EventBatch& batch, const std::string& where,
                 uint32_t format_major) {
  DecodeChunkBytes(decoder, chunk.SerializeAsString(), thread_count, site_count, batch, where,
                   format_major);
}

}  // namespace pecan::testing
