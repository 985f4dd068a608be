// RaceShards: the shards' threads, the batches of events they share, and the gathering of their
// results.
#include "analyzer/race_shards.h"

#include <malloc.h>
#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>

#include "analyzer/access_class_ids.h"
#include "analyzer/held_locks.h"
#include "analyzer/por_clocks.h"
#include "analyzer/streaming_races.h"

namespace pecan {
namespace {

// An event as the shards see it, 32 bytes (an Event with its number, location and flag took 48):
// its number is an offset from its batch's first event, its fields fill an Event's padding, and
// its repeats left out (Event::repeats_before), which no search reads, are not passed on.
struct FedEvent {
  uint64_t addr;
  uint32_t offset;  // its number's from Batch::first
  LocationId l;
  ThreadId thread;
  uint32_t size;
  SiteId site;
  EventKind kind;
  uint8_t flags;
  bool last_of_bytes;

  Event event() const { return Event{thread, kind, flags, size, addr, site, 0}; }
};
static_assert(sizeof(FedEvent) == 32);

struct Batch {
  EventIndex first = 0;  // the number of events[0]
  std::vector<FedEvent> events;
};

// Events a batch holds, and batches fed but not yet seen by every shard (the main loop waits
// past that): 2.2 MB with the one being filled. The shards' work comes in bursts (a thread's walk
// of a buffer one shard owns), the main loop's in others, and they wait on each other less with
// more batches between them: pcompress 4 MiB's second pass took 10.8 s with 8 batches, 8.1 s with
// 64; 8 MiB's about as long with 32 as with 64, and 32 MiB's no longer with 16 than with 32.
constexpr size_t kBatchEvents = 4096;
constexpr size_t kMaxBatches = 16;

// One shard: its race searches (one per group) and what they are fed besides the events.
class Shard {
 public:
  Shard(const RaceShardInputs& in, uint8_t index)
      : in_(in),
        index_(index),
        por_(in.thread_count, in.semaphore_initial, in.final_event, /*record=*/false) {
    por_.SetForkers(in.forker);
    for (const auto& group : in.groups)
      searches_.emplace_back(group, in.infos->size(), *in.guarded, &locks_, in.max_per_site,
                             in.owner, index_);
  }

  bool Owns(LocationId l) const { return (*in_.owner)[l] == index_; }

  // The main loop's steps for event `f`, for this shard's locations.
  void Visit(EventIndex i, const FedEvent& f) {
    const Event e = f.event();
    const uint32_t lockset = locks_.Current(e.thread);
    const PorStep step = por_.Visit(i, e);
    const LocationId l = f.l;
    if (l != kNoLocation && Owns(l)) {
      const LocationInfo& info = (*in_.infos)[l];
      // The race search numbers its classes itself: the lookup is only its key.
      AccessClassLookup cls(nullptr, l, e, lockset, info, f.last_of_bytes);
      for (RaceSearch& search : searches_)
        search.Access(i, e, l, info, cls, lockset, step.local, f.last_of_bytes, por_);
    }
    const auto& frees = *in_.frees;
    for (; next_free_ < frees.size() && frees[next_free_].first < i; ++next_free_) {
    }
    for (; next_free_ < frees.size() && frees[next_free_].first == i; ++next_free_) {
      if (!Owns(frees[next_free_].second)) continue;
      for (RaceSearch& search : searches_)
        search.Free(i, e, frees[next_free_].second, lockset, step.local, por_);
    }
    locks_.Visit(i, e);
    const auto& sealing = *in_.sealing;
    for (; next_sealed_ < sealing.size() && (*in_.last_accesses)[sealing[next_sealed_]] <= i;
         ++next_sealed_) {
      if (!Owns(sealing[next_sealed_])) continue;
      for (RaceSearch& search : searches_) search.Seal(sealing[next_sealed_]);
    }
    const auto& retiring = *in_.retiring;
    for (; next_retired_ < retiring.size() && (*in_.last_uses)[retiring[next_retired_]] <= i;
         ++next_retired_) {
      if (!Owns(retiring[next_retired_])) continue;
      for (RaceSearch& search : searches_) search.Retire(retiring[next_retired_]);
    }
  }

  std::vector<RaceSearch>& searches() { return searches_; }

 private:
  const RaceShardInputs& in_;
  uint8_t index_;
  HeldLocks locks_;
  PorClocks por_;
  std::vector<RaceSearch> searches_;
  size_t next_free_ = 0;
  size_t next_sealed_ = 0;
  size_t next_retired_ = 0;
};

}  // namespace

void ShareOneHeap() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, 1);
#endif
}

struct RaceShards::Impl {
  RaceShardInputs in;
  std::vector<std::unique_ptr<Shard>> shards;
  std::vector<std::thread> threads;

  std::mutex mutex;
  std::condition_variable work;   // a batch came, or the feeding ended
  std::condition_variable space;  // a batch was seen by every shard, or a shard failed
  // Batch n is ring[n % kRing]: up to kMaxBatches fed and not yet seen by every shard, and the
  // one the main loop is filling. The ring's batches are filled again, not made anew: a batch
  // made for each feed and freed by the last shard to see it left holes in the heap that the
  // growing searches could not use (pcompress 1 MiB: 8 MB free in the heap at the peak, 1.7 MB
  // with one thread).
  static constexpr size_t kRing = kMaxBatches + 1;
  std::array<Batch, kRing> ring;
  uint64_t published = 0;  // batches fed (the one being filled is ring[published % kRing])
  std::vector<uint64_t> next_batch;  // per shard: the number of the next batch it takes
  bool fed_all = false;              // Finish: no more batches
  bool stop = false;                 // the destructor, or a shard failed: stop now
  std::exception_ptr error;          // what the first shard to fail threw

  Batch& Filling() { return ring[published % kRing]; }

  // The number of the first batch some shard has not seen yet.
  uint64_t Unseen() const { return *std::min_element(next_batch.begin(), next_batch.end()); }

  void Run(unsigned k) {
    try {
      for (uint64_t number = 0;; ++number) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          work.wait(lock, [&] { return stop || fed_all || number < published; });
          if (stop) return;
          if (number >= published) return;  // fed_all, every batch seen
        }
        // The main loop fills it again only once every shard has seen it.
        const Batch& batch = ring[number % kRing];
        for (const FedEvent& f : batch.events) shards[k]->Visit(batch.first + f.offset, f);
        std::lock_guard<std::mutex> lock(mutex);
        const uint64_t unseen = Unseen();
        next_batch[k] = number + 1;
        if (Unseen() != unseen) space.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::current_exception();
      stop = true;
      work.notify_all();
      space.notify_all();
    }
  }

  // Hands the batch being filled to the shards, and waits for the next one to be free.
  void Publish() {
    std::unique_lock<std::mutex> lock(mutex);
    ++published;
    work.notify_all();
    space.wait(lock, [&] { return stop || published - Unseen() < kRing; });
    if (error) std::rethrow_exception(error);
    lock.unlock();
    Filling().events.clear();
    Filling().events.reserve(kBatchEvents);
  }

  void StopThreads() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    work.notify_all();
    for (std::thread& t : threads)
      if (t.joinable()) t.join();
  }
};

RaceShards::RaceShards(RaceShardInputs inputs, unsigned shards) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.in = std::move(inputs);
  // Shard k (from 1: 0 is the caller's) is m.shards[k - 1].
  for (unsigned k = 1; k < shards; ++k)
    m.shards.push_back(std::make_unique<Shard>(m.in, static_cast<uint8_t>(k)));
  m.next_batch.assign(m.shards.size(), 0);
  m.Filling().events.reserve(kBatchEvents);
  try {
    for (unsigned k = 0; k < m.shards.size(); ++k) m.threads.emplace_back([&m, k] { m.Run(k); });
  } catch (...) {
    m.StopThreads();
    throw;
  }
}

RaceShards::~RaceShards() {
  if (impl_) impl_->StopThreads();
}

void RaceShards::Feed(EventIndex i, const Event& e, LocationId l, bool last_of_bytes) {
  Impl& m = *impl_;
  // A batch spans fewer than 2^32 events (its offsets' bound): the next starts past that.
  if (!m.Filling().events.empty() && i - m.Filling().first > UINT32_MAX) m.Publish();
  Batch& filling = m.Filling();
  if (filling.events.empty()) filling.first = i;
  filling.events.push_back(FedEvent{e.addr, static_cast<uint32_t>(i - filling.first), l, e.thread,
                                    e.size, e.site, e.kind, e.flags, last_of_bytes});
  if (filling.events.size() == kBatchEvents) m.Publish();
}

void RaceShards::Finish(std::vector<RaceSearch>* searches) {
  Impl& m = *impl_;
  if (!m.Filling().events.empty()) m.Publish();
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    m.fed_all = true;
  }
  m.work.notify_all();
  for (std::thread& t : m.threads) t.join();
  m.threads.clear();
  if (m.error) std::rethrow_exception(m.error);
  for (const auto& shard : m.shards)
    for (size_t g = 0; g < searches->size(); ++g)
      (*searches)[g].Absorb(std::move(shard->searches()[g]));
}

}  // namespace pecan
