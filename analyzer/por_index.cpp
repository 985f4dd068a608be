// PorIndex: PorClocks' one pass over the trace turns every thread-communication edge into a
// vector clock version of the receiving thread; the index keeps each event's position and
// version, so Ordered() is one array lookup.
#include "analyzer/por_index.h"

#include <algorithm>
#include <utility>

#include "analyzer/por_clocks.h"

namespace pecan {

struct PorIndex::Impl {
  uint32_t thread_count = 0;
  std::vector<uint32_t> local;    // per event: position within its thread
  std::vector<uint32_t> version;  // per event: clock version of its thread in force at it
  std::vector<std::vector<EventIndex>> thread_events;
  std::vector<std::vector<uint32_t>> clocks;  // PorClocks::TakeClocks
  std::vector<std::pair<EventIndex, EventIndex>> sync_edges;
};

PorIndex::PorIndex(const Trace& trace) : impl_(std::make_unique<Impl>()) {
  Impl& d = *impl_;
  const size_t n_events = trace.size_events();
  uint32_t n = static_cast<uint32_t>(trace.threads.size());
  for (ThreadId t : trace.thread) n = std::max<uint32_t>(n, t + 1);
  SemaphoreCounts semaphores;
  std::vector<EventIndex> final_event(n, ~EventIndex{0});
  for (EventIndex i = 0; i < n_events; ++i) {
    const EventKind k = trace.kind[i];
    if (k == EventKind::kSemPost || k == EventKind::kSemWait) semaphores.Scan(trace.event(i));
    final_event[trace.thread[i]] = i;
  }
  PorClocks clocks(n, semaphores.Initial(), std::move(final_event), /*record=*/true);
  d.thread_count = n;
  d.local.resize(n_events);
  d.version.resize(n_events);
  d.thread_events.assign(n, {});
  for (EventIndex i = 0; i < n_events; ++i) {
    const PorStep step = clocks.Visit(i, trace.event(i));
    d.local[i] = step.local;
    d.version[i] = step.version;
    d.thread_events[trace.thread[i]].push_back(i);
  }
  d.clocks = clocks.TakeClocks();
  d.sync_edges = clocks.TakeSyncEdges();
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
