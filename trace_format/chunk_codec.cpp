// Checked decoding of EventChunk messages into columns.
#include "trace_format/chunk_codec.h"

#include <algorithm>
#include <cstring>

#include "trace_format/error.h"
#include "trace_format/record_framing.h"

namespace pecan {

void ChunkDecoder::Decode(const proto::EventChunk& chunk, size_t thread_count, size_t site_count,
                          EventBatch& batch, const std::string& where, uint32_t format_major) {
  const bool per_site = format_major >= 2;
  const uint64_t n = chunk.count();
  auto fail = [&where](const std::string& what) { throw PecanError(where + ": " + what); };
  if (n > framing::kMaxChunkEvents) fail("chunk claims " + std::to_string(n) + " events");
  if (chunk.kind().size() != n || chunk.flags().size() != n ||
      static_cast<uint64_t>(chunk.addr_delta_size()) != n ||
      static_cast<uint64_t>(chunk.size_size()) != n ||
      static_cast<uint64_t>(chunk.site_delta_size()) != n)
    fail("chunk columns disagree with its event count " + std::to_string(n));
  if (chunk.thread_run_thread_size() != chunk.thread_run_length_size())
    fail("chunk thread-run columns disagree");
  if (chunk.repeats_before_size() != 0 && static_cast<uint64_t>(chunk.repeats_before_size()) != n)
    fail("chunk repeat counts disagree with its event count " + std::to_string(n));

  batch.first_event = chunk.first_event();
  batch.thread.resize(n);
  batch.kind.resize(n);
  batch.flags.resize(n);
  batch.size.resize(n);
  batch.addr.resize(n);
  batch.site.resize(n);
  batch.repeats_before.clear();
  for (int i = 0; i < chunk.repeats_before_size(); ++i) {
    // The recorder never leaves out more than 65535 in a row (recorder/repeat_filter.h).
    if (chunk.repeats_before(i) > UINT16_MAX)
      fail("event " + std::to_string(chunk.first_event() + i) + " claims " +
           std::to_string(chunk.repeats_before(i)) + " repeats before it");
    batch.repeats_before.push_back(static_cast<uint16_t>(chunk.repeats_before(i)));
  }
  if (n == 0) return;
  std::memcpy(batch.kind.data(), chunk.kind().data(), n);
  std::memcpy(batch.flags.data(), chunk.flags().data(), n);
  std::memcpy(batch.size.data(), chunk.size().data(), n * sizeof(uint32_t));
  for (uint64_t i = 0; i < n; ++i)
    if (static_cast<uint8_t>(batch.kind[i]) >= kEventKindCount) saw_unknown_kinds_ = true;

  state_.StartChunk();
  if (per_site) {
    site_addrs_.StartChunk();
    site_addrs_.Reserve(site_count);
  }
  PerSiteAddressState::Entry* const site_addrs = site_addrs_.entries();
  const uint32_t generation = site_addrs_.generation();
  const int64_t* addr_delta = chunk.addr_delta().data();
  const int64_t* site_delta = chunk.site_delta().data();
  uint64_t pos = 0;
  for (int r = 0; r < chunk.thread_run_thread_size(); ++r) {
    ThreadId t = chunk.thread_run_thread(r);
    uint64_t length = chunk.thread_run_length(r);
    if (t >= thread_count)
      fail("event " + std::to_string(batch.first_event + pos) + " names thread " +
           std::to_string(t) + ", not in the thread table");
    if (length == 0 || length > n - pos) fail("chunk thread runs do not cover its events");
    state_.Touch(t);
    uint64_t addr = state_.addr(t);
    int64_t site = state_.site(t);
    for (uint64_t i = pos; i < pos + length; ++i) {
      // Unsigned arithmetic wraps where a signed overflow would be undefined.
      site =
          static_cast<int64_t>(static_cast<uint64_t>(site) + static_cast<uint64_t>(site_delta[i]));
      if (site < 0 || static_cast<uint64_t>(site) >= site_count)
        fail("event " + std::to_string(batch.first_event + i) + " names site " +
             std::to_string(site) + ", not in the site table");
      if (per_site) {
        PerSiteAddressState::Entry& entry = site_addrs[site];
        addr = (entry.generation == generation ? entry.addr : 0) +
               static_cast<uint64_t>(addr_delta[i]);
        entry = {addr, generation};
      } else {
        addr += static_cast<uint64_t>(addr_delta[i]);
      }
      batch.thread[i] = t;
      batch.addr[i] = addr;
      batch.site[i] = static_cast<SiteId>(site);
    }
    state_.addr(t) = addr;
    state_.site(t) = static_cast<uint32_t>(site);
    pos += length;
  }
  if (pos != n) fail("chunk thread runs do not cover its events");
}

}  // namespace pecan
