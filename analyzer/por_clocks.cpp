// PorClocks: each receiving event joins its messages into its thread's current clock; a new
// version is stored only when the clock actually grew. Messages refer to a sender's version, so
// a message costs a few words, not a vector.
#include "analyzer/por_clocks.h"

#include <algorithm>
#include <optional>

namespace pecan {
namespace {

// The sending side of a POR edge: event `local` (trace index `event`) of `thread`, whose clock
// is version `version` of that thread.
struct MessageRef {
  ThreadId thread = 0;
  uint32_t local = 0;
  uint32_t version = 0;
  EventIndex event = 0;
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
  // Per thread: events fed, the last one's trace index, the current clock and its version.
  std::vector<uint32_t> events;
  std::vector<EventIndex> last_event;
  std::vector<std::vector<uint32_t>> current;
  std::vector<uint32_t> current_version;
  std::vector<std::vector<uint32_t>> clocks;  // TakeClocks()
  std::vector<std::pair<EventIndex, EventIndex>> sync_edges;
  std::vector<std::optional<MessageRef>> fork_message;
  std::vector<std::optional<MessageRef>> release_fence;
  std::vector<MessageSet> unacquired_reads;

  struct NotifyRecord {
    MessageRef sender;
    bool broadcast;
    bool consumed;
  };
  std::unordered_map<uint64_t, std::vector<NotifyRecord>> notifies;

  struct BarrierState {
    MessageSet open_generation;
    uint32_t arrived = 0;
    uint32_t generation = 0;         // number of the open generation
    std::vector<MessageSet> closed;  // generations that filled up
  };
  std::unordered_map<uint64_t, BarrierState> barriers;
  std::unordered_map<std::pair<ThreadId, uint64_t>, uint32_t, PairHash> arrival_generation;

  struct SemaphoreState {
    std::vector<MessageRef> posts;
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
        if (e.addr < n && events[e.addr] > 0) Receive(t, i, LatestOf(static_cast<ThreadId>(e.addr)));
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

    // Sending side.
    const MessageRef self{t, local, step.version, i};
    switch (e.kind) {
      case EventKind::kFork:
        if (e.addr < n) fork_message[e.addr] = self;
        break;
      case EventKind::kNotify:
      case EventKind::kNotifyAll:
        notifies[e.addr].push_back(NotifyRecord{self, e.kind == EventKind::kNotifyAll, false});
        break;
      case EventKind::kBarrierArrive:
        Arrive(e, self);
        break;
      case EventKind::kSemPost:
        semaphores[e.addr].posts.push_back(self);
        break;
      case EventKind::kHbRelease:
        hb_keys[e.addr].Add(self);
        break;
      case EventKind::kAtomicStore:
      case EventKind::kAtomicRmw:
      case EventKind::kWrite:
        WriteLocation(e, self);
        break;
      case EventKind::kFence:
        if (IsReleaseOrder(e.flags)) release_fence[t] = self;
        break;
      default:
        break;
    }
    return step;
  }

  MessageRef LatestOf(ThreadId t) const {
    return MessageRef{t, events[t] - 1, current_version[t], last_event[t]};
  }

  void Receive(ThreadId t, EventIndex i, const MessageSet& set) {
    for (const MessageRef& m : set.Refs()) Receive(t, i, m);
  }

  void Receive(ThreadId t, EventIndex i, const MessageRef& m) {
    if (m.thread == t) return;  // program order already covers it
    std::vector<uint32_t>& cur = current[t];
    // The clock is transitively closed: if the source itself is already known to precede i,
    // so is everything before it, and the edge adds nothing.
    if (m.local + 1 <= cur[m.thread]) return;
    const uint32_t* source = clocks[m.thread].data() + static_cast<size_t>(m.version) * n;
    for (uint32_t u = 0; u < n; ++u) cur[u] = std::max(cur[u], source[u]);
    cur[m.thread] = m.local + 1;
    sync_edges.emplace_back(m.event, i);
    std::vector<uint32_t>& versions = clocks[t];
    versions.insert(versions.end(), cur.begin(), cur.end());
    current_version[t] = static_cast<uint32_t>(versions.size() / n - 1);
  }

  // The notify that woke a wait is the last NOTIFY_ALL, or the last NOTIFY not already consumed
  // by another waiter, on the same condition variable after the waiter's previous event (its
  // UNLOCK of the mutex) and before the WAIT.
  void ReceiveNotify(ThreadId t, EventIndex wait, uint64_t cv, EventIndex wait_started) {
    auto it = notifies.find(cv);
    if (it == notifies.end()) return;
    std::vector<NotifyRecord>& records = it->second;
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
    if (post < s.posts.size()) Receive(t, i, s.posts[post]);
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

  void WriteLocation(const Event& e, const MessageRef& self) {
    if (e.kind == EventKind::kWrite) {
      // Plain writes only matter where atomics live; do not grow the map for them.
      auto it = release_sequences.find(e.addr);
      if (it != release_sequences.end()) it->second.Clear();
      return;
    }
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
                     std::unordered_map<uint64_t, uint64_t> semaphore_initial)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  const uint32_t n = thread_count;
  s.n = n;
  s.events.assign(n, 0);
  s.last_event.assign(n, 0);
  s.current.assign(n, std::vector<uint32_t>(n, 0));
  s.current_version.assign(n, 0);
  s.clocks.assign(n, std::vector<uint32_t>(n, 0));
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
  return earlier == t || impl_->current[t][earlier] > local;
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
