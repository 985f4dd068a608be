// PorClocks: each receiving event joins its messages into its thread's current clock; a new
// clock is made only when it actually grew. Clocks are shared and never changed once made, so a
// message holds its sender's clock by reference, and a clock no message needs any more is freed.
#include "analyzer/por_clocks.h"

#include <algorithm>
#include <deque>
#include <optional>

namespace pecan {
namespace {

// The sending side of a POR edge: event `local` (trace index `event`) of `thread`, and the
// thread's clock at it.
struct MessageRef {
  ThreadId thread = 0;
  uint32_t local = 0;
  EventIndex event = 0;
  ClockSnapshot clock;
};

// At most one message per sending thread: a later event of the same thread dominates an earlier
// one (program order), so keeping the latest loses nothing.
class MessageSet {
 public:
  void Add(const MessageRef& m) {
    for (MessageRef& existing : refs_) {
      if (existing.thread == m.thread) {
        if (m.local >= existing.local) existing = m;
        return;
      }
    }
    refs_.push_back(m);
  }
  void Clear() { refs_.clear(); }
  bool Empty() const { return refs_.empty(); }
  const std::vector<MessageRef>& Refs() const { return refs_; }

 private:
  std::vector<MessageRef> refs_;
};

bool IsAcquireOrder(uint8_t flags) {
  auto order = static_cast<MemoryOrder>(flags);
  return order == MemoryOrder::kAcquire || order == MemoryOrder::kConsume ||
         order == MemoryOrder::kAcqRel || order == MemoryOrder::kSeqCst;
}

bool IsReleaseOrder(uint8_t flags) {
  auto order = static_cast<MemoryOrder>(flags);
  return order == MemoryOrder::kRelease || order == MemoryOrder::kAcqRel ||
         order == MemoryOrder::kSeqCst;
}

constexpr EventIndex kNoEvent = ~EventIndex{0};

struct PairHash {
  size_t operator()(const std::pair<ThreadId, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.second * 0x9E3779B97F4A7C15ull ^ p.first);
  }
};

}  // namespace

void SemaphoreCounts::Scan(const Event& e) {
  if (e.kind == EventKind::kSemPost) {
    ++counts_[e.addr].posts;
  } else if (e.kind == EventKind::kSemWait) {
    Counts& c = counts_[e.addr];
    ++c.waits;
    if (c.waits > c.posts) c.initial = std::max(c.initial, c.waits - c.posts);
  }
}

std::unordered_map<uint64_t, uint64_t> SemaphoreCounts::Initial() const {
  std::unordered_map<uint64_t, uint64_t> out;
  for (const auto& [addr, c] : counts_)
    if (c.waits > 0) out[addr] = c.initial;
  return out;
}

struct PorClocks::Impl {
  uint32_t n = 0;
  bool record = true;  // keep every version and edge (TakeClocks, TakeSyncEdges)
  // Per thread: events fed, the last one's trace index, the current clock and its version, and
  // the trace index of its last event in the whole trace (kNoEvent: none).
  std::vector<uint32_t> events;
  std::vector<EventIndex> last_event;
  std::vector<ClockSnapshot> current;
  std::vector<uint32_t> current_version;
  std::vector<EventIndex> final_event;
  std::vector<std::vector<uint32_t>> clocks;  // TakeClocks()
  std::vector<std::pair<EventIndex, EventIndex>> sync_edges;
  std::vector<std::optional<MessageRef>> fork_message;
  std::vector<ThreadId> forker;  // SetForkers: per thread, who forks it (kNoThread: unknown)
  std::vector<std::optional<MessageRef>> release_fence;
  std::vector<MessageSet> unacquired_reads;

  struct NotifyRecord {
    MessageRef sender;
    bool broadcast;
    bool consumed;
  };
  struct NotifyRecords {
    std::vector<NotifyRecord> records;  // in trace order
    size_t pruned_at = 0;               // size after the last pruning
  };
  std::unordered_map<uint64_t, NotifyRecords> notifies;

  struct BarrierState {
    MessageSet open_generation;
    uint32_t arrived = 0;
    uint32_t generation = 0;         // number of the open generation
    std::vector<MessageSet> closed;  // generations that filled up
  };
  std::unordered_map<uint64_t, BarrierState> barriers;
  std::unordered_map<std::pair<ThreadId, uint64_t>, uint32_t, PairHash> arrival_generation;

  struct SemaphoreState {
    std::deque<MessageRef> posts;  // from the first_post-th (0-based) on
    uint64_t first_post = 0;
    uint64_t waits = 0;
    uint64_t initial = 0;
  };
  std::unordered_map<uint64_t, SemaphoreState> semaphores;
  std::unordered_map<uint64_t, MessageSet> hb_keys;
  std::unordered_map<uint64_t, MessageSet> release_sequences;

  PorStep Visit(EventIndex i, const Event& e) {
    const ThreadId t = e.thread;
    // The wait of a condition wait starts after the thread's previous event (its UNLOCK).
    const EventIndex wait_started = events[t] == 0 ? 0 : last_event[t];
    const uint32_t local = events[t]++;
    last_event[t] = i;

    // Receiving side first, so the event itself is ordered after its sources.
    if (local == 0 && fork_message[t]) Receive(t, i, *fork_message[t]);
    switch (e.kind) {
      case EventKind::kJoin:
        if (e.addr < n && events[e.addr] > 0)
          Receive(t, i, LatestOf(static_cast<ThreadId>(e.addr)));
        break;
      case EventKind::kWait:
        if (!(e.flags & kWaitTimedOutFlag)) ReceiveNotify(t, i, e.addr, wait_started);
        break;
      case EventKind::kBarrierDepart:
        ReceiveBarrier(t, i, e.addr);
        break;
      case EventKind::kSemWait:
        ReceiveSemaphore(t, i, e.addr);
        break;
      case EventKind::kHbAcquire: {
        auto it = hb_keys.find(e.addr);
        if (it != hb_keys.end()) Receive(t, i, it->second);
        break;
      }
      case EventKind::kAtomicLoad:
      case EventKind::kAtomicRmw:
        ReadAtomic(t, i, e);
        break;
      case EventKind::kFence:
        if (IsAcquireOrder(e.flags) && !unacquired_reads[t].Empty()) {
          Receive(t, i, unacquired_reads[t]);
          unacquired_reads[t].Clear();
        }
        break;
      default:
        break;
    }
    const PorStep step{local, current_version[t]};

    // Sending side. The message is made only for an event that sends one: it copies the clock's
    // shared pointer, and most events are plain accesses.
    auto self = [&] { return MessageRef{t, local, i, current[t]}; };
    switch (e.kind) {
      case EventKind::kFork:
        if (e.addr < n) fork_message[e.addr] = self();
        break;
      case EventKind::kNotify:
      case EventKind::kNotifyAll:
        AddNotify(e.addr, NotifyRecord{self(), e.kind == EventKind::kNotifyAll, false});
        break;
      case EventKind::kBarrierArrive:
        Arrive(e, self());
        break;
      case EventKind::kSemPost:
        semaphores[e.addr].posts.push_back(self());
        break;
      case EventKind::kHbRelease:
        hb_keys[e.addr].Add(self());
        break;
      case EventKind::kWrite:
        // A plain write ends the release sequences of its address; it sends nothing.
        if (!release_sequences.empty()) {
          auto it = release_sequences.find(e.addr);
          if (it != release_sequences.end()) it->second.Clear();
        }
        break;
      case EventKind::kAtomicStore:
      case EventKind::kAtomicRmw:
        WriteAtomic(e, self());
        break;
      case EventKind::kFence:
        if (IsReleaseOrder(e.flags)) release_fence[t] = self();
        break;
      default:
        break;
    }
    return step;
  }

  MessageRef LatestOf(ThreadId t) const {
    return MessageRef{t, events[t] - 1, last_event[t], current[t]};
  }

  void Receive(ThreadId t, EventIndex i, const MessageSet& set) {
    for (const MessageRef& m : set.Refs()) Receive(t, i, m);
  }

  void Receive(ThreadId t, EventIndex i, const MessageRef& m) {
    if (m.thread == t) return;  // program order already covers it
    // The clock is transitively closed: if the source itself is already known to precede i,
    // so is everything before it, and the edge adds nothing.
    if (m.local + 1 <= (*current[t])[m.thread]) return;
    auto grown = LocalShared<std::vector<uint32_t>>::Make(*current[t]);
    const std::vector<uint32_t>& source = *m.clock;
    for (uint32_t u = 0; u < n; ++u) (*grown)[u] = std::max((*grown)[u], source[u]);
    (*grown)[m.thread] = m.local + 1;
    ++current_version[t];
    if (record) {
      sync_edges.emplace_back(m.event, i);
      clocks[t].insert(clocks[t].end(), grown->begin(), grown->end());
    }
    current[t] = std::move(grown);
  }

  // A notify record is needed only while some wait could still take it: a later wait of thread
  // u looks back to u's previous event at the furthest, so records before every unfinished
  // thread's last event are dropped (a thread with no event yet keeps them all).
  void AddNotify(uint64_t cv, const NotifyRecord& record) {
    NotifyRecords& list = notifies[cv];
    list.records.push_back(record);
    if (list.records.size() < 2 * list.pruned_at + 64) return;
    EventIndex floor = ~EventIndex{0};
    for (ThreadId u = 0; u < n; ++u) {
      // Finished: its last event in the trace is behind this notify.
      if (final_event[u] == kNoEvent || final_event[u] < record.sender.event) continue;
      floor = std::min(floor, events[u] == 0 ? EventIndex{0} : last_event[u]);
    }
    auto keep = std::find_if(list.records.begin(), list.records.end(),
                             [&](const NotifyRecord& r) { return r.sender.event >= floor; });
    list.records.erase(list.records.begin(), keep);
    list.pruned_at = list.records.size();
  }

  // The notify that woke a wait is the last NOTIFY_ALL, or the last NOTIFY not already consumed
  // by another waiter, on the same condition variable after the waiter's previous event (its
  // UNLOCK of the mutex) and before the WAIT.
  void ReceiveNotify(ThreadId t, EventIndex wait, uint64_t cv, EventIndex wait_started) {
    auto it = notifies.find(cv);
    if (it == notifies.end()) return;
    std::vector<NotifyRecord>& records = it->second.records;
    for (auto r = records.rbegin(); r != records.rend(); ++r) {
      if (r->sender.event < wait_started) break;
      if (r->sender.thread == t) continue;
      if (r->broadcast || !r->consumed) {
        r->consumed = true;
        Receive(t, wait, r->sender);
        return;
      }
    }
  }

  void Arrive(const Event& e, const MessageRef& self) {
    BarrierState& b = barriers[e.addr];
    b.open_generation.Add(self);
    ++b.arrived;
    arrival_generation[{self.thread, e.addr}] = b.generation;
    if (e.size != 0 && b.arrived >= e.size) CloseGeneration(b);
  }

  static void CloseGeneration(BarrierState& b) {
    b.closed.push_back(std::move(b.open_generation));
    b.open_generation = MessageSet();
    b.arrived = 0;
    ++b.generation;
  }

  // Every arrival of a generation precedes every departure of it. A departure from a generation
  // that never filled up (participant count 0 or a truncated trace) closes it.
  void ReceiveBarrier(ThreadId t, EventIndex i, uint64_t barrier) {
    auto bit = barriers.find(barrier);
    if (bit == barriers.end()) return;
    BarrierState& b = bit->second;
    auto git = arrival_generation.find({t, barrier});
    if (git == arrival_generation.end()) return;
    const uint32_t generation = git->second;
    if (generation == b.generation) CloseGeneration(b);
    Receive(t, i, b.closed[generation]);
  }

  // The k-th wait is ordered after the (k - v)-th post, v the initial count (SemaphoreCounts):
  // any reordering keeping these edges never waits on an empty semaphore.
  void ReceiveSemaphore(ThreadId t, EventIndex i, uint64_t semaphore) {
    SemaphoreState& s = semaphores[semaphore];
    const uint64_t k = ++s.waits;
    if (k <= s.initial) return;
    const uint64_t post = k - s.initial - 1;  // 0-based index of the (k - v)-th post
    // Later waits take later posts: the ones before this one are not needed any more.
    while (s.first_post < post && !s.posts.empty()) {
      s.posts.pop_front();
      ++s.first_post;
    }
    if (post == s.first_post && !s.posts.empty()) Receive(t, i, s.posts.front());
  }

  // Release sequences, simplified: a plain write or a non-RMW store starts a new sequence at
  // the address (carrying its own release message, or the message of the thread's last release
  // fence); an RMW extends the current one. An acquire load or RMW receives the sequence it
  // read from (the last write before it in trace order); a relaxed load keeps it pending until
  // the thread's next acquire fence.
  void ReadAtomic(ThreadId t, EventIndex i, const Event& e) {
    auto it = release_sequences.find(e.addr);
    if (it == release_sequences.end() || it->second.Empty()) return;
    if (IsAcquireOrder(e.flags)) {
      Receive(t, i, it->second);
    } else {
      for (const MessageRef& m : it->second.Refs()) unacquired_reads[t].Add(m);
    }
  }

  // An atomic store or read-modify-write: the release sequence it heads or continues.
  void WriteAtomic(const Event& e, const MessageRef& self) {
    std::optional<MessageRef> carried;
    if (IsReleaseOrder(e.flags)) {
      carried = self;
    } else if (release_fence[e.thread]) {
      carried = release_fence[e.thread];
    }
    MessageSet& sequence = release_sequences[e.addr];
    if (e.kind != EventKind::kAtomicRmw) sequence.Clear();
    if (carried) sequence.Add(*carried);
  }
};

PorClocks::PorClocks(uint32_t thread_count,
                     std::unordered_map<uint64_t, uint64_t> semaphore_initial,
                     std::vector<EventIndex> final_event, bool record)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  const uint32_t n = thread_count;
  s.n = n;
  s.record = record;
  s.events.assign(n, 0);
  s.last_event.assign(n, 0);
  s.current.assign(n, ClockSnapshot::Make(n, 0));
  s.current_version.assign(n, 0);
  s.final_event = std::move(final_event);
  s.final_event.resize(n, kNoEvent);
  if (record) s.clocks.assign(n, std::vector<uint32_t>(n, 0));
  s.fork_message.assign(n, std::nullopt);
  s.release_fence.assign(n, std::nullopt);
  s.unacquired_reads.assign(n, MessageSet());
  for (const auto& [addr, initial] : semaphore_initial) s.semaphores[addr].initial = initial;
}

PorClocks::~PorClocks() = default;
PorClocks::PorClocks(PorClocks&&) noexcept = default;

PorStep PorClocks::Visit(EventIndex i, const Event& e) {
  return impl_->Visit(i, e);
}

bool PorClocks::OrderedBeforeCurrent(ThreadId earlier, uint32_t local, ThreadId t) const {
  return earlier == t || (*impl_->current[t])[earlier] > local;
}

ClockSnapshot PorClocks::CurrentClock(ThreadId t) const {
  return impl_->current[t];
}

const std::vector<uint32_t>& PorClocks::CurrentClockView(ThreadId t) const {
  return *impl_->current[t];
}

uint32_t PorClocks::LeastKnown(ThreadId t, ThreadId u) const {
  const Impl& s = *impl_;
  if (s.final_event[t] == kNoEvent || (s.events[t] > 0 && s.last_event[t] >= s.final_event[t]))
    return ~0u;
  uint32_t known = (*s.current[t])[u];
  if (s.events[t] == 0 && s.fork_message[t]) {
    const MessageRef& m = *s.fork_message[t];
    known = std::max(known, m.thread == u ? m.local + 1 : (*m.clock)[u]);
  } else if (s.events[t] == 0 && t < s.forker.size() && s.forker[t] != kNoThread) {
    // Its fork has not run: the forker's later event carries at least what the forker knows now
    // (of itself: the events it ran so far). Forks precede the threads they start: no cycle.
    const ThreadId f = s.forker[t];
    known = std::max(known, f == u ? s.events[f] : LeastKnown(f, u));
  }
  return known;
}

void PorClocks::SetForkers(std::vector<ThreadId> forker) {
  impl_->forker = std::move(forker);
}

void PorClocks::KnowledgeOf(ThreadId u, std::vector<uint32_t>* out) const {
  const Impl& s = *impl_;
  auto add = [&](const MessageRef& m) {
    out->push_back(std::max((*m.clock)[u], m.thread == u ? m.local + 1 : 0));
  };
  auto add_set = [&](const MessageSet& set) {
    for (const MessageRef& m : set.Refs()) add(m);
  };
  for (ThreadId t = 0; t < s.n; ++t) {
    out->push_back((*s.current[t])[u]);
    if (s.fork_message[t]) add(*s.fork_message[t]);
    if (s.release_fence[t]) add(*s.release_fence[t]);
    add_set(s.unacquired_reads[t]);
  }
  for (const auto& [cv, records] : s.notifies)
    for (const Impl::NotifyRecord& r : records.records) add(r.sender);
  for (const auto& [barrier, state] : s.barriers) {
    add_set(state.open_generation);
    for (const MessageSet& set : state.closed) add_set(set);
  }
  for (const auto& [sem, state] : s.semaphores)
    for (const MessageRef& m : state.posts) add(m);
  for (const auto& [key, set] : s.hb_keys) add_set(set);
  for (const auto& [addr, set] : s.release_sequences) add_set(set);
}

uint32_t PorClocks::thread_count() const {
  return impl_->n;
}

std::vector<std::vector<uint32_t>> PorClocks::TakeClocks() {
  return std::move(impl_->clocks);
}

std::vector<std::pair<EventIndex, EventIndex>> PorClocks::TakeSyncEdges() {
  return std::move(impl_->sync_edges);
}

}  // namespace pecan
