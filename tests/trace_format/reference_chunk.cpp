// The reference column encoding, written as directly as FORMAT.md describes it.
#include "reference_chunk.h"

#include <map>

namespace pecan::testing {

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
    chunk.add_addr_delta(static_cast<int64_t>(events.addr[i] - (format_major >= 2 ? site_addr : addr)));
    site_addr = events.addr[i];
    chunk.add_site_delta(static_cast<int64_t>(events.site[i]) - static_cast<int64_t>(site));
    chunk.add_size(events.size[i]);
    addr = events.addr[i];
    site = events.site[i];
  }
  for (uint16_t repeats : events.repeats_before) chunk.add_repeats_before(repeats);
  return chunk;
}

}  // namespace pecan::testing
