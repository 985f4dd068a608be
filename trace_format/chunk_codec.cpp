// Checked decoding of EventChunk messages into columns.
#include "trace_format/chunk_codec.h"

#include <algorithm>
#include <cstring>

#include "trace_format/error.h"
#include "trace_format/record_framing.h"

namespace pecan {

void ChunkDecoder::Fail(const std::string& what) const {
  throw PecanError(where_ + ": " + what);
}

void ChunkDecoder::Decode(const proto::EventChunk& chunk, size_t thread_count, size_t site_count,
                          EventBatch& batch, const std::string& where, uint32_t format_major) {
  Start(chunk, thread_count, site_count, where, format_major);
  if (!DecodeNext(batch, n_)) batch.Clear(chunk.first_event());  // an empty chunk
}

void ChunkDecoder::Start(const proto::EventChunk& chunk, size_t thread_count, size_t site_count,
                         const std::string& where, uint32_t format_major) {
  chunk_ = &chunk;
  where_ = where;
  thread_count_ = thread_count;
  site_count_ = site_count;
  per_site_ = format_major >= 2;
  n_ = chunk.count();
  pos_ = 0;
  run_ = 0;
  run_done_ = 0;
  const uint64_t n = n_;
  if (n > framing::kMaxChunkEvents) Fail("chunk claims " + std::to_string(n) + " events");
  if (chunk.kind().size() != n || chunk.flags().size() != n ||
      static_cast<uint64_t>(chunk.addr_delta_size()) != n ||
      static_cast<uint64_t>(chunk.size_size()) != n ||
      static_cast<uint64_t>(chunk.site_delta_size()) != n)
    Fail("chunk columns disagree with its event count " + std::to_string(n));
  if (chunk.thread_run_thread_size() != chunk.thread_run_length_size())
    Fail("chunk thread-run columns disagree");
  if (chunk.repeats_before_size() != 0 && static_cast<uint64_t>(chunk.repeats_before_size()) != n)
    Fail("chunk repeat counts disagree with its event count " + std::to_string(n));
  for (int i = 0; i < chunk.repeats_before_size(); ++i) {
    // The recorder never leaves out more than 65535 in a row (recorder/repeat_filter.h).
    if (chunk.repeats_before(i) > UINT16_MAX)
      Fail("event " + std::to_string(chunk.first_event() + i) + " claims " +
           std::to_string(chunk.repeats_before(i)) + " repeats before it");
  }
  state_.StartChunk();
  if (per_site_) {
    site_addrs_.StartChunk();
    site_addrs_.Reserve(site_count);
  }
}

bool ChunkDecoder::DecodeNext(EventBatch& batch, uint64_t max) {
  const proto::EventChunk& chunk = *chunk_;
  if (pos_ >= n_) return false;
  const uint64_t first = pos_;
  const uint64_t count = std::min<uint64_t>(max, n_ - pos_);
  batch.first_event = chunk.first_event() + first;
  batch.thread.resize(count);
  batch.kind.resize(count);
  batch.flags.resize(count);
  batch.size.resize(count);
  batch.addr.resize(count);
  batch.site.resize(count);
  batch.repeats_before.clear();
  if (chunk.repeats_before_size() != 0) {
    batch.repeats_before.resize(count);
    for (uint64_t i = 0; i < count; ++i)
      batch.repeats_before[i] =
          static_cast<uint16_t>(chunk.repeats_before(static_cast<int>(first + i)));
  }
  std::memcpy(batch.kind.data(), chunk.kind().data() + first, count);
  std::memcpy(batch.flags.data(), chunk.flags().data() + first, count);
  std::memcpy(batch.size.data(), chunk.size().data() + first, count * sizeof(uint32_t));
  for (uint64_t i = 0; i < count; ++i)
    if (static_cast<uint8_t>(batch.kind[i]) >= kEventKindCount) saw_unknown_kinds_ = true;

  PerSiteAddressState::Entry* const site_addrs = site_addrs_.entries();
  const uint32_t generation = site_addrs_.generation();
  const int64_t* addr_delta = chunk.addr_delta().data();
  const int64_t* site_delta = chunk.site_delta().data();
  const uint64_t end = first + count;
  while (pos_ < end) {
    if (run_ >= chunk.thread_run_thread_size()) Fail("chunk thread runs do not cover its events");
    const ThreadId t = chunk.thread_run_thread(run_);
    const uint64_t length = chunk.thread_run_length(run_);
    if (run_done_ == 0) {
      if (t >= thread_count_)
        Fail("event " + std::to_string(chunk.first_event() + pos_) + " names thread " +
             std::to_string(t) + ", not in the thread table");
      if (length == 0 || length > n_ - pos_) Fail("chunk thread runs do not cover its events");
      state_.Touch(t);
    }
    uint64_t addr = state_.addr(t);
    int64_t site = state_.site(t);
    const uint64_t stop = std::min(end, pos_ + (length - run_done_));
    for (uint64_t i = pos_; i < stop; ++i) {
      // Unsigned arithmetic wraps where a signed overflow would be undefined.
      site =
          static_cast<int64_t>(static_cast<uint64_t>(site) + static_cast<uint64_t>(site_delta[i]));
      if (site < 0 || static_cast<uint64_t>(site) >= site_count_)
        Fail("event " + std::to_string(chunk.first_event() + i) + " names site " +
             std::to_string(site) + ", not in the site table");
      if (per_site_) {
        PerSiteAddressState::Entry& entry = site_addrs[site];
        addr = (entry.generation == generation ? entry.addr : 0) +
               static_cast<uint64_t>(addr_delta[i]);
        entry = {addr, generation};
      } else {
        addr += static_cast<uint64_t>(addr_delta[i]);
      }
      batch.thread[i - first] = t;
      batch.addr[i - first] = addr;
      batch.site[i - first] = static_cast<SiteId>(site);
    }
    state_.addr(t) = addr;
    state_.site(t) = static_cast<uint32_t>(site);
    run_done_ += stop - pos_;
    pos_ = stop;
    if (run_done_ == length) {
      ++run_;
      run_done_ = 0;
    }
  }
  if (pos_ == n_ && run_ != chunk.thread_run_thread_size()) {  // runs past the chunk's events
    const ThreadId t = chunk.thread_run_thread(run_);
    if (t >= thread_count_)
      Fail("event " + std::to_string(chunk.first_event() + pos_) + " names thread " +
           std::to_string(t) + ", not in the thread table");
    Fail("chunk thread runs do not cover its events");
  }
  return true;
}

}  // namespace pecan
