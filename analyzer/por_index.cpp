// PorIndex: one pass over the trace that turns every thread-communication edge into a vector
// clock version of the receiving thread; Ordered() is then one array lookup.
#include "analyzer/por_index.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

namespace pecan {
namespace {

// The sending side of a POR edge: event `local` of `thread`, whose clock is version `version`
// of that thread. Clocks are shared by reference, so a message costs 12 bytes, not a vector.
struct MessageRef {
  ThreadId thread = 0;
  uint32_t local = 0;
  uint32_t version = 0;
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

struct PorData {
  const Trace* trace = nullptr;
  uint32_t thread_count = 0;
  std::vector<uint32_t> local;    // per event: position within its thread
  std::vector<uint32_t> version;  // per event: clock version of its thread in force at it
  std::vector<std::vector<EventIndex>> thread_events;
  // Per thread, its clock versions flattened: entry [v * thread_count + u] is one more than the
  // local index of the last event of thread u ordered before the thread's events of version v
  // (0: none). Version 0 is the all-zero clock.
  std::vector<std::vector<uint32_t>> clocks;
  std::vector<std::pair<EventIndex, EventIndex>> sync_edges;

  const uint32_t* Clock(ThreadId t, uint32_t v) const {
    return clocks[t].data() + static_cast<size_t>(v) * thread_count;
  }
};

}  // namespace

struct PorIndex::Impl : PorData {};

namespace {

// Builds the clocks in one pass. Each receiving event joins its messages into the thread's
// current clock; a new version is stored only when the clock actually grew.
class PorBuilder {
 public:
  PorBuilder(const Trace& trace, PorData& out) : trace_(trace), out_(out) {}

  void Build() {
    out_.trace = &trace_;
    const size_t n_events = trace_.size_events();
    uint32_t n = static_cast<uint32_t>(trace_.threads.size());
    for (ThreadId t : trace_.thread) n = std::max<uint32_t>(n, t + 1);
    out_.thread_count = n;
    out_.local.resize(n_events);
    out_.version.resize(n_events);
    out_.thread_events.assign(n, {});
    out_.clocks.assign(n, std::vector<uint32_t>(n, 0));
    current_.assign(n, std::vector<uint32_t>(n, 0));
    current_version_.assign(n, 0);
    fork_message_.assign(n, std::nullopt);
    release_fence_.assign(n, std::nullopt);
    unacquired_reads_.assign(n, MessageSet());
    CountSemaphores();

    for (EventIndex i = 0; i < n_events; ++i) Visit(i);
  }

 private:
  void Visit(EventIndex i) {
    const ThreadId t = trace_.thread[i];
    const EventKind kind = trace_.kind[i];
    const uint64_t addr = trace_.addr[i];
    auto& events = out_.thread_events[t];
    // The wait of a condition wait starts after the thread's previous event (its UNLOCK).
    const EventIndex wait_started = events.empty() ? 0 : events.back();
    out_.local[i] = static_cast<uint32_t>(events.size());
    events.push_back(i);

    // Receiving side first, so the event itself is ordered after its sources.
    if (out_.local[i] == 0 && fork_message_[t]) Receive(i, *fork_message_[t]);
    switch (kind) {
      case EventKind::kJoin:
        if (addr < out_.thread_count && !out_.thread_events[addr].empty()) {
          const ThreadId child = static_cast<ThreadId>(addr);
          Receive(i, LatestOf(child));
        }
        break;
      case EventKind::kWait:
        if (!(trace_.flags[i] & kWaitTimedOutFlag)) ReceiveNotify(i, wait_started);
        break;
      case EventKind::kBarrierDepart:
        ReceiveBarrier(i);
        break;
      case EventKind::kSemWait:
        ReceiveSemaphore(i);
        break;
      case EventKind::kHbAcquire: {
        auto it = hb_keys_.find(addr);
        if (it != hb_keys_.end()) Receive(i, it->second);
        break;
      }
      case EventKind::kAtomicLoad:
      case EventKind::kAtomicRmw:
        ReadAtomic(i);
        break;
      case EventKind::kFence:
        if (IsAcquireOrder(trace_.flags[i]) && !unacquired_reads_[t].Empty()) {
          Receive(i, unacquired_reads_[t]);
          unacquired_reads_[t].Clear();
        }
        break;
      default:
        break;
    }
    out_.version[i] = current_version_[t];

    // Sending side.
    const MessageRef self{t, out_.local[i], out_.version[i]};
    switch (kind) {
      case EventKind::kFork:
        if (addr < out_.thread_count) fork_message_[addr] = self;
        break;
      case EventKind::kNotify:
      case EventKind::kNotifyAll:
        notifies_[addr].push_back(NotifyRecord{i, kind == EventKind::kNotifyAll, false});
        break;
      case EventKind::kBarrierArrive:
        Arrive(i, self);
        break;
      case EventKind::kSemPost:
        semaphores_[addr].posts.push_back(self);
        break;
      case EventKind::kHbRelease:
        hb_keys_[addr].Add(self);
        break;
      case EventKind::kAtomicStore:
      case EventKind::kAtomicRmw:
      case EventKind::kWrite:
        WriteLocation(i, self);
        break;
      case EventKind::kFence:
        if (IsReleaseOrder(trace_.flags[i])) release_fence_[t] = self;
        break;
      default:
        break;
    }
  }

  MessageRef LatestOf(ThreadId t) const {
    const uint32_t last = static_cast<uint32_t>(out_.thread_events[t].size() - 1);
    return MessageRef{t, last, current_version_[t]};
  }

  void Receive(EventIndex i, const MessageSet& set) {
    for (const MessageRef& m : set.Refs()) Receive(i, m);
  }

  void Receive(EventIndex i, const MessageRef& m) {
    const ThreadId t = trace_.thread[i];
    if (m.thread == t) return;  // program order already covers it
    const uint32_t n = out_.thread_count;
    std::vector<uint32_t>& cur = current_[t];
    // The clock is transitively closed: if the source itself is already known to precede i,
    // so is everything before it, and the edge adds nothing.
    if (m.local + 1 <= cur[m.thread]) return;
    const uint32_t* source = out_.Clock(m.thread, m.version);
    for (uint32_t u = 0; u < n; ++u) cur[u] = std::max(cur[u], source[u]);
    cur[m.thread] = m.local + 1;
    out_.sync_edges.emplace_back(out_.thread_events[m.thread][m.local], i);
    std::vector<uint32_t>& versions = out_.clocks[t];
    versions.insert(versions.end(), cur.begin(), cur.end());
    current_version_[t] = static_cast<uint32_t>(versions.size() / n - 1);
  }

  // The notify that woke a wait is the last NOTIFY_ALL, or the last NOTIFY not already consumed
  // by another waiter, on the same condition variable after the waiter's previous event (its
  // UNLOCK of the mutex) and before the WAIT.
  void ReceiveNotify(EventIndex wait, EventIndex wait_started) {
    auto it = notifies_.find(trace_.addr[wait]);
    if (it == notifies_.end()) return;
    std::vector<NotifyRecord>& records = it->second;
    for (auto r = records.rbegin(); r != records.rend(); ++r) {
      if (r->event < wait_started) break;
      if (trace_.thread[r->event] == trace_.thread[wait]) continue;
      if (r->broadcast || !r->consumed) {
        r->consumed = true;
        const EventIndex e = r->event;
        const ThreadId sender = trace_.thread[e];
        Receive(wait, MessageRef{sender, out_.local[e], out_.version[e]});
        return;
      }
    }
  }

  struct BarrierState {
    MessageSet open_generation;
    uint32_t arrived = 0;
    uint32_t generation = 0;         // number of the open generation
    std::vector<MessageSet> closed;  // generations that filled up
  };

  void Arrive(EventIndex i, const MessageRef& self) {
    BarrierState& b = barriers_[trace_.addr[i]];
    b.open_generation.Add(self);
    ++b.arrived;
    arrival_generation_[{self.thread, trace_.addr[i]}] = b.generation;
    const uint32_t size = trace_.size[i];
    if (size != 0 && b.arrived >= size) CloseGeneration(b);
  }

  static void CloseGeneration(BarrierState& b) {
    b.closed.push_back(std::move(b.open_generation));
    b.open_generation = MessageSet();
    b.arrived = 0;
    ++b.generation;
  }

  // Every arrival of a generation precedes every departure of it. A departure from a generation
  // that never filled up (participant count 0 or a truncated trace) closes it.
  void ReceiveBarrier(EventIndex i) {
    auto bit = barriers_.find(trace_.addr[i]);
    if (bit == barriers_.end()) return;
    BarrierState& b = bit->second;
    auto git = arrival_generation_.find({trace_.thread[i], trace_.addr[i]});
    if (git == arrival_generation_.end()) return;
    const uint32_t generation = git->second;
    if (generation == b.generation) CloseGeneration(b);
    Receive(i, b.closed[generation]);
  }

  // Semaphores: the trace does not record the initial count, so we take the smallest initial
  // count v consistent with the trace (the k-th wait in trace order needs k - v earlier posts)
  // and order the k-th wait after the (k - v)-th post. Any reordering keeping these edges has,
  // before its m-th wait, m distinct posts done beyond v, so it never waits on an empty
  // semaphore: the rule never admits an infeasible reordering.
  struct SemaphoreState {
    std::vector<MessageRef> posts;
    uint64_t waits = 0;
    uint64_t initial = 0;
  };

  void CountSemaphores() {
    std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> counts;  // posts, waits
    for (EventIndex i = 0; i < trace_.size_events(); ++i) {
      const EventKind k = trace_.kind[i];
      if (k == EventKind::kSemPost) {
        ++counts[trace_.addr[i]].first;
      } else if (k == EventKind::kSemWait) {
        auto& [posts, waits] = counts[trace_.addr[i]];
        ++waits;
        SemaphoreState& s = semaphores_[trace_.addr[i]];
        if (waits > posts) s.initial = std::max(s.initial, waits - posts);
      }
    }
  }

  void ReceiveSemaphore(EventIndex i) {
    SemaphoreState& s = semaphores_[trace_.addr[i]];
    const uint64_t k = ++s.waits;
    if (k <= s.initial) return;
    const uint64_t post = k - s.initial - 1;  // 0-based index of the (k - v)-th post
    if (post < s.posts.size()) Receive(i, s.posts[post]);
  }

  // Release sequences, simplified: a plain write or a non-RMW store starts a new sequence at
  // the address (carrying its own release message, or the message of the thread's last release
  // fence); an RMW extends the current one. An acquire load or RMW receives the sequence it
  // read from (the last write before it in trace order); a relaxed load keeps it pending until
  // the thread's next acquire fence.
  void ReadAtomic(EventIndex i) {
    auto it = release_sequences_.find(trace_.addr[i]);
    if (it == release_sequences_.end() || it->second.Empty()) return;
    if (IsAcquireOrder(trace_.flags[i])) {
      Receive(i, it->second);
    } else {
      for (const MessageRef& m : it->second.Refs()) unacquired_reads_[trace_.thread[i]].Add(m);
    }
  }

  void WriteLocation(EventIndex i, const MessageRef& self) {
    const EventKind kind = trace_.kind[i];
    const ThreadId t = trace_.thread[i];
    std::optional<MessageRef> carried;
    if (kind != EventKind::kWrite) {
      if (IsReleaseOrder(trace_.flags[i])) {
        carried = self;
      } else if (release_fence_[t]) {
        carried = release_fence_[t];
      }
    }
    if (kind == EventKind::kWrite) {
      // Plain writes only matter where atomics live; do not grow the map for them.
      auto it = release_sequences_.find(trace_.addr[i]);
      if (it != release_sequences_.end()) it->second.Clear();
      return;
    }
    MessageSet& sequence = release_sequences_[trace_.addr[i]];
    if (kind != EventKind::kAtomicRmw) sequence.Clear();
    if (carried) sequence.Add(*carried);
  }

  struct NotifyRecord {
    EventIndex event;
    bool broadcast;
    bool consumed;
  };

  struct PairHash {
    size_t operator()(const std::pair<ThreadId, uint64_t>& p) const {
      return std::hash<uint64_t>()(p.second * 0x9E3779B97F4A7C15ull ^ p.first);
    }
  };

  const Trace& trace_;
  PorData& out_;
  std::vector<std::vector<uint32_t>> current_;
  std::vector<uint32_t> current_version_;
  std::vector<std::optional<MessageRef>> fork_message_;
  std::vector<std::optional<MessageRef>> release_fence_;
  std::vector<MessageSet> unacquired_reads_;
  std::unordered_map<uint64_t, std::vector<NotifyRecord>> notifies_;
  std::unordered_map<uint64_t, BarrierState> barriers_;
  std::unordered_map<std::pair<ThreadId, uint64_t>, uint32_t, PairHash> arrival_generation_;
  std::unordered_map<uint64_t, SemaphoreState> semaphores_;
  std::unordered_map<uint64_t, MessageSet> hb_keys_;
  std::unordered_map<uint64_t, MessageSet> release_sequences_;
};

}  // namespace

PorIndex::PorIndex(const Trace& trace) : impl_(std::make_unique<Impl>()) {
  PorBuilder(trace, *impl_).Build();
  thread_ = trace.thread.data();
  local_ = impl_->local.data();
  version_ = impl_->version.data();
  clocks_ = impl_->clocks.data();
  thread_count_ = impl_->thread_count;
}

PorIndex::~PorIndex() = default;
PorIndex::PorIndex(PorIndex&&) noexcept = default;

const std::vector<EventIndex>& PorIndex::ThreadEvents(ThreadId t) const {
  static const std::vector<EventIndex> kNone;
  return t < impl_->thread_events.size() ? impl_->thread_events[t] : kNone;
}

uint32_t PorIndex::ThreadCount() const {
  return impl_->thread_count;
}

const std::vector<std::pair<EventIndex, EventIndex>>& PorIndex::SyncEdges() const {
  return impl_->sync_edges;
}

}  // namespace pecan
