// The lock-order graph fed request by request, its strongly connected components, bounded cycle
// enumeration inside them, and a small backtracking search for one feasible instance per edge.
#include "analyzer/deadlock_prediction.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace pecan {
namespace {

using Instance = LockOrderGraph::Instance;

// Chooses one instance per edge of a lock cycle under the pairwise rules of the header.
class CycleAssignment {
 public:
  CycleAssignment(const LockOrderGraph& graph,
                  const std::function<bool(uint32_t, uint32_t)>& exclusive, uint64_t* steps)
      : graph_(graph), exclusive_(exclusive), steps_(steps) {}

  // `edges` in cycle order (edge k's target is edge k+1's source). Fills `picked`.
  bool Solve(const std::vector<uint32_t>& edges, std::vector<size_t>* picked) {
    edges_ = &edges;
    picked_.assign(edges.size(), 0);
    if (!Extend(0)) return false;
    *picked = picked_;
    return true;
  }

 private:
  bool Extend(size_t k) {
    const std::vector<uint32_t>& edges = *edges_;
    if (k == edges.size()) return true;
    for (size_t candidate : graph_.InstancesOf(edges[k])) {
      if (++*steps_ > kMaxAssignmentSteps) return false;
      const Instance& x = graph_.InstanceAt(candidate);
      bool fits = true;
      for (size_t j = 0; j < k && fits; ++j) fits = Compatible(graph_.InstanceAt(picked_[j]), x);
      // The previous thread requests the lock this one holds: the request must wait.
      if (fits && k > 0) fits = Blocks(graph_.InstanceAt(picked_[k - 1]), x);
      if (fits && k + 1 == edges.size()) fits = Blocks(x, graph_.InstanceAt(picked_[0]));
      if (!fits) continue;
      picked_[k] = candidate;
      if (Extend(k + 1)) return true;
      if (*steps_ > kMaxAssignmentSteps) return false;
    }
    return false;
  }

  bool Compatible(const Instance& a, const Instance& b) const {
    if (a.thread == b.thread) return false;
    if (exclusive_(a.held_locks, b.held_locks)) return false;
    // Both threads must stand just before their requests at once: neither request is ordered
    // before the other thread's event before its request (a clock only counts earlier events).
    return (*b.before_clock)[a.thread] <= a.request_local &&
           (*a.before_clock)[b.thread] <= b.request_local;
  }

  // Whether `requester`'s request waits for `holder`, which holds the requested lock.
  static bool Blocks(const Instance& requester, const Instance& holder) {
    return !(requester.request_read && holder.held_read);
  }

  const LockOrderGraph& graph_;
  const std::function<bool(uint32_t, uint32_t)>& exclusive_;
  uint64_t* steps_;
  const std::vector<uint32_t>* edges_ = nullptr;
  std::vector<size_t> picked_;
};

// Simple cycles of length 2..kMaxCycleLocks inside each strongly connected component, each
// found once (from its smallest vertex).
class CycleEnumerator {
 public:
  explicit CycleEnumerator(const LockOrderGraph& graph) : graph_(graph) {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph g(graph.LockCount());
    for (const auto& [from, to] : graph.Edges()) boost::add_edge(from, to, g);
    component_.assign(graph.LockCount(), 0);
    const int count = boost::strong_components(
        g,
        boost::make_iterator_property_map(component_.begin(), boost::get(boost::vertex_index, g)));
    std::vector<uint32_t> size(static_cast<size_t>(count), 0);
    for (int c : component_) ++size[static_cast<size_t>(c)];
    successors_.resize(graph.LockCount());
    for (const auto& [from, to] : graph.Edges()) {
      if (component_[from] == component_[to] && size[static_cast<size_t>(component_[from])] > 1)
        successors_[from].push_back(to);
    }
    for (auto& s : successors_) std::sort(s.begin(), s.end());
  }

  // Calls visit(lock cycle as vertices) for each cycle until it returns false or the bound.
  template <typename Visit>
  uint64_t ForEach(Visit&& visit) {
    uint64_t found = 0;
    on_path_.assign(graph_.LockCount(), false);
    for (uint32_t start = 0; start < graph_.LockCount(); ++start) {
      if (successors_[start].empty()) continue;
      path_.assign(1, start);
      on_path_[start] = true;
      const bool go_on = Walk(start, start, visit, found);
      on_path_[start] = false;
      if (!go_on) break;
    }
    return found;
  }

 private:
  template <typename Visit>
  bool Walk(uint32_t start, uint32_t at, Visit& visit, uint64_t& found) {
    for (uint32_t next : successors_[at]) {
      if (next == start && path_.size() >= 2) {
        if (++found > kMaxLockCycles || !visit(path_)) return false;
        continue;
      }
      if (next <= start || on_path_[next] || path_.size() >= kMaxCycleLocks) continue;
      path_.push_back(next);
      on_path_[next] = true;
      const bool go_on = Walk(start, next, visit, found);
      on_path_[next] = false;
      path_.pop_back();
      if (!go_on) return false;
    }
    return true;
  }

  const LockOrderGraph& graph_;
  std::vector<int> component_;
  std::vector<std::vector<uint32_t>> successors_;
  std::vector<uint32_t> path_;
  std::vector<bool> on_path_;
};

}  // namespace

size_t LockOrderGraph::InstanceKeyHash::operator()(const InstanceKey& k) const {
  uint64_t h = k.edge;
  h = h * 0x9e3779b97f4a7c15ull + k.thread;
  h = h * 0x9e3779b97f4a7c15ull + k.held_site;
  h = h * 0x9e3779b97f4a7c15ull + k.request_site;
  h = h * 0x9e3779b97f4a7c15ull + k.held_locks;
  return static_cast<size_t>(h ^ (h >> 29));
}

size_t LockOrderGraph::PairHash::operator()(const std::pair<uint64_t, uint64_t>& p) const {
  const uint64_t h = p.first * 0x9e3779b97f4a7c15ull ^ (p.second + 0x632be59bd9b4e019ull);
  return static_cast<size_t>(h ^ (h >> 31));
}

void LockOrderGraph::AddRequest(const LockRequest& r, const std::vector<HeldLockAt>& held,
                                const std::function<PorClock()>& before_clock) {
  if (r.kind != EventKind::kLock && r.kind != EventKind::kReadLock) return;
  // A trylock or timed lock gives up instead of waiting forever: it closes no cycle.
  if ((r.flags & 1) != 0 || held.empty()) return;
  // Re-acquiring a held lock (recursive mutex, or a self-deadlock the run would show) is not an
  // order between two locks.
  if (std::any_of(held.begin(), held.end(), [&](const HeldLockAt& h) { return h.lock == r.lock; }))
    return;
  if (r.local == 0) return;
  PorClock clock;
  for (const HeldLockAt& h : held) {
    const uint32_t edge = EdgeId(h.lock, r.lock);
    const InstanceKey key{edge, r.thread, h.site, r.site, r.held_locks};
    auto [slot, inserted] = seen_.try_emplace(key);
    if (!clock) clock = before_clock();
    Instance instance{r.thread, h.acquired_at, r.event, h.site, r.site, h.read_mode,
                      r.kind == EventKind::kReadLock, r.local, r.held_locks, clock};
    if (inserted) {
      slot->second.first = slot->second.last = instances_.size();
      instances_.push_back(std::move(instance));
      edge_instances_[edge].push_back(slot->second.first);
    } else if (slot->second.last == slot->second.first) {
      // Keep the last occurrence too: it overlaps more of the other threads.
      slot->second.last = instances_.size();
      instances_.push_back(std::move(instance));
      edge_instances_[edge].push_back(slot->second.last);
    } else {
      instances_[slot->second.last] = std::move(instance);
    }
  }
}

const uint32_t* LockOrderGraph::Find(uint32_t from, uint32_t to) const {
  auto it = edge_id_.find({from, to});
  return it == edge_id_.end() ? nullptr : &it->second;
}

uint32_t LockOrderGraph::Vertex(uint64_t lock) {
  auto [it, inserted] = vertex_of_.try_emplace(lock, static_cast<uint32_t>(lock_address_.size()));
  if (inserted) lock_address_.push_back(lock);
  return it->second;
}

uint32_t LockOrderGraph::EdgeId(uint64_t from_lock, uint64_t to_lock) {
  const uint32_t from = Vertex(from_lock);
  const uint32_t to = Vertex(to_lock);
  auto [it, inserted] = edge_id_.try_emplace({from, to}, static_cast<uint32_t>(edges_.size()));
  if (inserted) {
    edges_.emplace_back(from, to);
    edge_instances_.emplace_back();
  }
  return it->second;
}

std::vector<Finding> LockOrderGraph::FindDeadlocks(
    const std::function<bool(uint32_t, uint32_t)>& exclusive, DeadlockSearchStats* stats) const {
  const LockOrderGraph& graph = *this;
  std::vector<Finding> findings;
  std::map<std::vector<SiteId>, size_t> by_sites;
  uint64_t steps = 0;
  CycleAssignment assignment(graph, exclusive, &steps);
  CycleEnumerator cycles(graph);
  const uint64_t examined = cycles.ForEach([&](const std::vector<uint32_t>& locks) {
    std::vector<uint32_t> edges;
    for (size_t k = 0; k < locks.size(); ++k) {
      edges.push_back(*graph.Find(locks[k], locks[(k + 1) % locks.size()]));
    }
    std::vector<size_t> picked;
    if (!assignment.Solve(edges, &picked)) return steps <= kMaxAssignmentSteps;
    // Start the cycle at its smallest (held site, request site) so rotations compare equal.
    auto sites_of = [&](size_t k) {
      const Instance& x = graph.InstanceAt(picked[k]);
      return std::make_pair(x.held_site, x.request_site);
    };
    size_t first = 0;
    for (size_t k = 1; k < picked.size(); ++k) {
      if (sites_of(k) < sites_of(first)) first = k;
    }
    Finding finding;
    finding.pattern = "deadlock";
    finding.variant = "cycle of " + std::to_string(picked.size()) + " locks";
    std::vector<SiteId> key;
    for (size_t n = 0; n < picked.size(); ++n) {
      const Instance& x = graph.InstanceAt(picked[(first + n) % picked.size()]);
      finding.events.push_back(x.held_acquire);
      finding.events.push_back(x.request);
      key.push_back(x.held_site);
      key.push_back(x.request_site);
    }
    finding.reason =
        "each thread can hold its lock while the next one holds the lock it "
        "requests: no fork/join, notify/wait or barrier orders the nested "
        "acquisitions and no common lock guards them";
    auto [slot, inserted] = by_sites.try_emplace(key, findings.size());
    if (inserted) {
      findings.push_back(std::move(finding));
    } else {
      ++findings[slot->second].witnesses;
    }
    return true;
  });
  if (stats != nullptr) {
    stats->edges = graph.InstanceCount();
    stats->cycles = examined;
  }
  return findings;
}

std::vector<Finding> PredictDeadlocks(const Trace& trace, const PorIndex& por,
                                      const LocksetTable& locksets, DeadlockSearchStats* stats) {
  LockOrderGraph graph;
  std::vector<HeldLockAt> held;
  for (EventIndex i = 0; i < trace.size_events(); ++i) {
    const EventKind kind = trace.kind[i];
    if (kind != EventKind::kLock && kind != EventKind::kReadLock) continue;
    const LocksetId held_id = locksets.Of(i);
    if (held_id == kEmptyLockset) continue;
    held.clear();
    for (const HeldLock& h : locksets.Locks(held_id))
      held.push_back(HeldLockAt{h.lock, h.read_mode, h.acquired_at, trace.site[h.acquired_at]});
    const ThreadId thread = trace.thread[i];
    const uint64_t local = por.LocalIndex(i);
    const LockRequest request{i,           thread,
                              kind,        trace.flags[i],
                              trace.addr[i], trace.site[i],
                              static_cast<uint32_t>(local), locksets.AddressSetOf(held_id)};
    graph.AddRequest(request, held, [&] {
      return PorClock::Make(por.ClockAt(por.ThreadEvents(thread)[local - 1]));
    });
  }
  return graph.FindDeadlocks(
      [&](uint32_t a, uint32_t b) { return locksets.ExclusiveAddressSets(a, b); }, stats);
}

}  // namespace pecan
