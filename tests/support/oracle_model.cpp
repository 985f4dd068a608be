// The hybrid model's constraints for small traces, computed directly (no vector clocks).
#include "tests/support/oracle_model.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace pecan::test {
namespace {

bool IsAcquireOrder(uint8_t flags) {
  auto order = static_cast<MemoryOrder>(flags);
  return order == MemoryOrder::kAcquire || order == MemoryOrder::kAcqRel ||
         order == MemoryOrder::kSeqCst;
}
bool IsReleaseOrder(uint8_t flags) {
  auto order = static_cast<MemoryOrder>(flags);
  return order == MemoryOrder::kRelease || order == MemoryOrder::kAcqRel ||
         order == MemoryOrder::kSeqCst;
}
bool EndsRegion(EventKind kind) {
  return kind == EventKind::kFork || kind == EventKind::kJoin || kind == EventKind::kWait ||
         kind == EventKind::kNotify || kind == EventKind::kNotifyAll;
}

}  // namespace

OracleModel::OracleModel(const Trace& trace) : trace_(trace) {
  for (EventIndex i = 0; i < trace.size_events(); ++i)
    if (trace.kind[i] == EventKind::kSemPost || trace.kind[i] == EventKind::kSemWait)
      throw std::invalid_argument("oracle: semaphores are not modelled (event " +
                                  std::to_string(i) + ")");
  ComputeThreads();
  ComputePorEdges();
  ComputeLocks();
  ComputeUnits();
}

void OracleModel::ComputeThreads() {
  size_t threads = trace_.threads.size();
  for (EventIndex i = 0; i < trace_.size_events(); ++i) {
    threads = std::max<size_t>(threads, trace_.thread[i] + 1);
    EventKind kind = trace_.kind[i];
    if (kind == EventKind::kFork || kind == EventKind::kJoin)
      threads = std::max<size_t>(threads, trace_.addr[i] + 1);
  }
  thread_events_.assign(threads, {});
  local_.assign(trace_.size_events(), 0);
  for (EventIndex i = 0; i < trace_.size_events(); ++i) {
    auto& events = thread_events_[trace_.thread[i]];
    local_[i] = static_cast<uint32_t>(events.size());
    events.push_back(i);
  }
}

void OracleModel::ComputePorEdges() {
  const EventIndex n = trace_.size_events();
  cross_preds_.assign(n, {});
  auto add_edge = [&](EventIndex from, EventIndex to) {
    if (trace_.thread[from] != trace_.thread[to]) cross_preds_[to].push_back(from);
  };

  std::map<uint64_t, EventIndex> last_write;                // address -> last write-type access
  std::map<uint64_t, std::vector<EventIndex>> hb_releases;  // key -> HB_RELEASE events so far
  struct BarrierState {
    std::vector<std::vector<EventIndex>> generations;  // arrivals per generation
    uint64_t arrivals = 0;
  };
  std::map<uint64_t, BarrierState> barriers;
  std::map<std::pair<ThreadId, uint64_t>, size_t> arrival_generation;  // (thread, barrier) -> gen
  std::vector<std::pair<EventIndex, size_t>> departs;

  for (EventIndex i = 0; i < n; ++i) {
    ThreadId t = trace_.thread[i];
    EventKind kind = trace_.kind[i];
    uint64_t address = trace_.addr[i];
    switch (kind) {
      case EventKind::kFork: {
        const auto& child = thread_events_[address];
        if (!child.empty()) add_edge(i, child.front());
        break;
      }
      case EventKind::kJoin: {
        const auto& child = thread_events_[address];
        // Only the part of the child that ran before the join can precede it.
        EventIndex last = n;
        for (EventIndex c : child)
          if (c < i) last = c;
        if (last != n) add_edge(last, i);
        break;
      }
      case EventKind::kWait: {
        if ((trace_.flags[i] & kWaitTimedOutFlag) || local_[i] == 0) break;
        EventIndex window_start = thread_events_[t][local_[i] - 1];
        for (EventIndex j = i; j-- > window_start + 1;) {
          EventKind other = trace_.kind[j];
          if ((other == EventKind::kNotify || other == EventKind::kNotifyAll) &&
              trace_.addr[j] == address && trace_.thread[j] != t) {
            add_edge(j, i);
            break;
          }
        }
        break;
      }
      case EventKind::kHbRelease:
        hb_releases[address].push_back(i);
        break;
      case EventKind::kHbAcquire:
        for (EventIndex r : hb_releases[address]) add_edge(r, i);
        break;
      case EventKind::kBarrierArrive: {
        BarrierState& barrier = barriers[address];
        uint64_t participants = std::max<uint64_t>(trace_.size[i], 1);
        size_t generation = barrier.arrivals / participants;
        ++barrier.arrivals;
        if (barrier.generations.size() <= generation) barrier.generations.resize(generation + 1);
        barrier.generations[generation].push_back(i);
        arrival_generation[{t, address}] = generation;
        break;
      }
      case EventKind::kBarrierDepart: {
        auto it = arrival_generation.find({t, address});
        if (it != arrival_generation.end()) departs.emplace_back(i, it->second);
        break;
      }
      default:
        break;
    }
    if (IsReadAccess(kind) && IsAtomicAccess(kind) && IsAcquireOrder(trace_.flags[i])) {
      auto it = last_write.find(address);
      if (it != last_write.end()) {
        EventIndex store = it->second;
        if (IsAtomicAccess(trace_.kind[store]) && IsReleaseOrder(trace_.flags[store]))
          add_edge(store, i);
      }
    }
    if (IsWriteAccess(kind)) last_write[address] = i;
  }
  for (auto [depart, generation] : departs) {
    const auto& arrivals = barriers[trace_.addr[depart]].generations[generation];
    for (EventIndex arrive : arrivals) add_edge(arrive, depart);
  }
  for (auto& preds : cross_preds_) {
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  }
}

void OracleModel::ComputeLocks() {
  held_.assign(thread_count(), {});
  for (ThreadId t = 0; t < thread_count(); ++t) {
    std::vector<LockHold> holding;
    held_[t].push_back(holding);
    for (EventIndex e : thread_events_[t]) {
      EventKind kind = trace_.kind[e];
      if (IsAcquire(kind)) {
        holding.push_back(LockHold{trace_.addr[e], kind == EventKind::kReadLock});
      } else if (IsRelease(kind)) {
        for (size_t k = holding.size(); k-- > 0;) {
          if (holding[k].lock == trace_.addr[e]) {
            holding.erase(holding.begin() + static_cast<std::ptrdiff_t>(k));
            break;
          }
        }
      }
      held_[t].push_back(holding);
    }
  }
}

void OracleModel::ComputeUnits() {
  unit_.assign(event_count(), 0);
  unit_is_region_.clear();
  auto new_unit = [&](bool region) {
    unit_is_region_.push_back(region);
    return static_cast<uint32_t>(unit_is_region_.size() - 1);
  };
  for (ThreadId t = 0; t < thread_count(); ++t) {
    int lock_depth = 0;
    int annotation_depth = 0;
    bool open = false;
    uint32_t current = 0;
    for (EventIndex e : thread_events_[t]) {
      EventKind kind = trace_.kind[e];
      bool inside_before = lock_depth + annotation_depth > 0;
      if (IsAcquire(kind)) ++lock_depth;
      if (IsRelease(kind) && lock_depth > 0) --lock_depth;
      if (kind == EventKind::kRegionBegin) ++annotation_depth;
      if (kind == EventKind::kRegionEnd && annotation_depth > 0) --annotation_depth;
      bool inside_after = lock_depth + annotation_depth > 0;

      if (EndsRegion(kind)) {
        unit_[e] = new_unit(false);
        open = false;
        continue;
      }
      if (inside_before || inside_after) {
        if (!open) {
          current = new_unit(true);
          open = true;
        }
        unit_[e] = current;
        if (!inside_after) open = false;
      } else {
        unit_[e] = new_unit(false);
      }
    }
  }
}

bool OracleModel::Enabled(const std::vector<uint32_t>& positions, EventIndex e) const {
  for (EventIndex p : cross_preds_[e])
    if (positions[trace_.thread[p]] <= local_[p]) return false;
  EventKind kind = trace_.kind[e];
  if (!IsAcquire(kind)) return true;
  ThreadId self = trace_.thread[e];
  uint64_t lock = trace_.addr[e];
  for (ThreadId u = 0; u < thread_count(); ++u) {
    if (u == self) continue;
    for (const LockHold& hold : held_[u][positions[u]])
      if (hold.lock == lock && (kind == EventKind::kLock || !hold.read_mode)) return false;
  }
  return true;
}

}  // namespace pecan::test
