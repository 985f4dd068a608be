// PorClocks: the vector clocks of the partial order relation (POR), computed in one pass over
// the events in trace order, one event at a time, without the trace in memory. PorIndex keeps
// what it returns for every event; the streaming searches (streaming_analysis.h) ask it about
// the event just fed. The edges are PorIndex's (por_index.h): fork, join, notify -> the wait it
// woke, barrier generations, semaphore post -> wait, release -> acquire that read it, user
// happens-before annotations. Lock release -> acquire is not one.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analyzer/local_shared.h"
#include "trace_format/trace.h"

namespace pecan {

// A snapshot of a thread's clock, shared by whoever keeps it. PorClocks and all who keep its
// snapshots live on one thread (LocalShared).
using ClockSnapshot = LocalShared<const std::vector<uint32_t>>;

// Semaphores: the trace does not record the initial count, so the POR takes the smallest one
// consistent with the whole trace (the k-th wait in trace order needs k - v earlier posts).
// A first pass feeds every event to Scan.
class SemaphoreCounts {
 public:
  void Scan(const Event& e);
  // Per semaphore address that needs one: the smallest initial count.
  std::unordered_map<uint64_t, uint64_t> Initial() const;

 private:
  struct Counts {
    uint64_t posts = 0;
    uint64_t waits = 0;
    uint64_t initial = 0;
  };
  std::unordered_map<uint64_t, Counts> counts_;
};

inline constexpr ThreadId kNoThread = ~ThreadId{0};

// Where an event stands in its thread: its position (0-based) and the clock version in force at
// it (a thread's version grows only where an edge arrives that adds order).
struct PorStep {
  uint32_t local = 0;
  uint32_t version = 0;
};

class PorClocks {
 public:
  // `thread_count`: more than every thread id of the trace; `semaphore_initial`: from a
  // SemaphoreCounts that saw the whole trace; `final_event`: per thread, the index of its last
  // event in the trace (~0 or missing: it has none), so what no later wait can use is dropped.
  // With `record`, every clock version and edge is kept for TakeClocks and TakeSyncEdges;
  // without, memory is bounded by the threads and the messages still pending.
  PorClocks(uint32_t thread_count, std::unordered_map<uint64_t, uint64_t> semaphore_initial,
            std::vector<EventIndex> final_event, bool record);
  ~PorClocks();
  PorClocks(PorClocks&&) noexcept;

  // Feeds event `i` (events come in trace order, `i` increasing).
  PorStep Visit(EventIndex i, const Event& e);

  // True when event `local` of thread `earlier` is ordered before the event of thread `t` just
  // fed (or any later one of t's current clock version).
  bool OrderedBeforeCurrent(ThreadId earlier, uint32_t local, ThreadId t) const;
  // The clock of thread t's current version (that of its event just fed; before t's first event,
  // the all-zero clock): entry u is one more than the local index of the last event of thread u
  // ordered before it. Shared and never changed.
  ClockSnapshot CurrentClock(ThreadId t) const;
  // The same clock, not shared: valid until thread t's next event is fed. Without a snapshot's
  // two count changes, for a search that reads it at every access.
  const std::vector<uint32_t>& CurrentClockView(ThreadId t) const;

  // The least thread t's events from now on know of thread u (their clock entry for u): its
  // current clock's, or for a thread not started yet, what the fork that starts it carries, if it
  // ran (else 0); ~0 for a thread whose last event ran.
  uint32_t LeastKnown(ThreadId t, ThreadId u) const;
  // Per thread, the thread whose FORK starts it (kNoThread: none in the trace), from a first pass:
  // before that fork runs, LeastKnown takes what the forker knows as the child's least.
  void SetForkers(std::vector<ThreadId> forker);
  // Every entry for thread u that a thread's clock can take from here on without u's later
  // events: each thread's current one, and each one a message still held would bring (fork,
  // notify, semaphore post, barrier generation, release store or fence, happens-before key).
  // Appended to `out`, unsorted, with repeats.
  void KnowledgeOf(ThreadId u, std::vector<uint32_t>* out) const;

  uint32_t thread_count() const;
  // With `record`: per thread, its clock versions flattened: entry [v * thread_count + u] is one
  // more than the local index of the last event of thread u ordered before the thread's events of
  // version v (0: none). Version 0 is the all-zero clock.
  std::vector<std::vector<uint32_t>> TakeClocks();
  // With `record`: the inter-thread edges (source, destination) that added ordering, in
  // destination order.
  std::vector<std::pair<EventIndex, EventIndex>> TakeSyncEdges();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pecan
