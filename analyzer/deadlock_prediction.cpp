// PredictDeadlocks(): the lock-order graph, its strongly connected components, bounded cycle
// enumeration inside them, and a small backtracking search for one feasible instance per edge.
#include "analyzer/deadlock_prediction.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

namespace pecan {
namespace {

// One nested acquisition: `thread` holds the lock it took at `held_acquire` and requests
// another at `request`.
struct EdgeInstance {
  ThreadId thread = 0;
  EventIndex held_acquire = 0;
  EventIndex request = 0;
  EventIndex before_request = 0;  // the thread's event just before the request
  bool held_read = false;
  bool request_read = false;
};

// What makes two nestings of one edge interchangeable for the search.
struct InstanceKey {
  uint32_t edge = 0;
  ThreadId thread = 0;
  SiteId held_site = 0;
  SiteId request_site = 0;
  uint32_t held_locks = 0;  // LocksetTable::AddressSetOf the set held at the request
  bool operator==(const InstanceKey&) const = default;
};

struct InstanceKeyHash {
  size_t operator()(const InstanceKey& k) const {
    uint64_t h = k.edge;
    h = h * 0x9e3779b97f4a7c15ull + k.thread;
    h = h * 0x9e3779b97f4a7c15ull + k.held_site;
    h = h * 0x9e3779b97f4a7c15ull + k.request_site;
    h = h * 0x9e3779b97f4a7c15ull + k.held_locks;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    const uint64_t h = p.first * 0x9e3779b97f4a7c15ull ^ (p.second + 0x632be59bd9b4e019ull);
    return static_cast<size_t>(h ^ (h >> 31));
  }
};

class LockOrderGraph {
 public:
  LockOrderGraph(const Trace& trace, const PorIndex& por, const LocksetTable& locksets) {
    struct Slots {
      size_t first = 0;
      size_t last = 0;
    };
    std::unordered_map<InstanceKey, Slots, InstanceKeyHash> seen;
    for (EventIndex i = 0; i < trace.size_events(); ++i) {
      const EventKind kind = trace.kind[i];
      if (kind != EventKind::kLock && kind != EventKind::kReadLock) continue;
      // A trylock or timed lock gives up instead of waiting forever: it closes no cycle.
      if ((trace.flags[i] & 1) != 0) continue;
      const LocksetId held_id = locksets.Of(i);
      if (held_id == kEmptyLockset) continue;
      const std::vector<HeldLock>& held = locksets.Locks(held_id);
      const uint64_t lock = trace.addr[i];
      // Re-acquiring a held lock (recursive mutex, or a self-deadlock the run would show) is
      // not an order between two locks.
      if (std::any_of(held.begin(), held.end(), [&](const HeldLock& h) { return h.lock == lock; }))
        continue;
      const ThreadId thread = trace.thread[i];
      const uint64_t local = por.LocalIndex(i);
      if (local == 0) continue;
      const EventIndex before = por.ThreadEvents(thread)[local - 1];
      for (const HeldLock& h : held) {
        const uint32_t edge = EdgeId(h.lock, lock);
        EdgeInstance instance{thread, h.acquired_at, i,
                              before, h.read_mode,   kind == EventKind::kReadLock};
        const InstanceKey key{edge, thread, trace.site[h.acquired_at], trace.site[i],
                              locksets.AddressSetOf(held_id)};
        auto [slot, inserted] = seen.try_emplace(key);
        if (inserted) {
          slot->second.first = slot->second.last = instances_.size();
          instances_.push_back(instance);
          edge_instances_[edge].push_back(slot->second.first);
        } else if (slot->second.last == slot->second.first) {
          // Keep the last occurrence too: it overlaps more of the other threads.
          slot->second.last = instances_.size();
          instances_.push_back(instance);
          edge_instances_[edge].push_back(slot->second.last);
        } else {
          instances_[slot->second.last] = instance;
        }
      }
    }
  }

  size_t LockCount() const { return lock_address_.size(); }
  size_t InstanceCount() const { return instances_.size(); }
  const EdgeInstance& Instance(size_t i) const { return instances_[i]; }
  // Edges as (from lock, to lock) vertex pairs, indexed by edge id.
  const std::vector<std::pair<uint32_t, uint32_t>>& Edges() const { return edges_; }
  const std::vector<size_t>& InstancesOf(uint32_t edge) const { return edge_instances_[edge]; }
  // The edge from -> to, if any.
  const uint32_t* Find(uint32_t from, uint32_t to) const {
    auto it = edge_id_.find({from, to});
    return it == edge_id_.end() ? nullptr : &it->second;
  }

 private:
  uint32_t Vertex(uint64_t lock) {
    auto [it, inserted] = vertex_of_.try_emplace(lock, static_cast<uint32_t>(lock_address_.size()));
    if (inserted) lock_address_.push_back(lock);
    return it->second;
  }
  uint32_t EdgeId(uint64_t from_lock, uint64_t to_lock) {
    const uint32_t from = Vertex(from_lock);
    const uint32_t to = Vertex(to_lock);
    auto [it, inserted] = edge_id_.try_emplace({from, to}, static_cast<uint32_t>(edges_.size()));
    if (inserted) {
      edges_.emplace_back(from, to);
      edge_instances_.emplace_back();
    }
    return it->second;
  }

  std::unordered_map<uint64_t, uint32_t> vertex_of_;
  std::vector<uint64_t> lock_address_;
  std::unordered_map<std::pair<uint64_t, uint64_t>, uint32_t, PairHash> edge_id_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
  std::vector<std::vector<size_t>> edge_instances_;
  std::vector<EdgeInstance> instances_;
};

// Chooses one instance per edge of a lock cycle under the pairwise rules of the header.
class CycleAssignment {
 public:
  CycleAssignment(const LockOrderGraph& graph, const PorIndex& por, const LocksetTable& locksets,
                  uint64_t* steps)
      : graph_(graph), por_(por), locksets_(locksets), steps_(steps) {}

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
      const EdgeInstance& x = graph_.Instance(candidate);
      bool fits = true;
      for (size_t j = 0; j < k && fits; ++j) fits = Compatible(graph_.Instance(picked_[j]), x);
      // The previous thread requests the lock this one holds: the request must wait.
      if (fits && k > 0) fits = Blocks(graph_.Instance(picked_[k - 1]), x);
      if (fits && k + 1 == edges.size()) fits = Blocks(x, graph_.Instance(picked_[0]));
      if (!fits) continue;
      picked_[k] = candidate;
      if (Extend(k + 1)) return true;
      if (*steps_ > kMaxAssignmentSteps) return false;
    }
    return false;
  }

  bool Compatible(const EdgeInstance& a, const EdgeInstance& b) const {
    if (a.thread == b.thread) return false;
    if (locksets_.ExclusiveSets(locksets_.Of(a.request), locksets_.Of(b.request))) return false;
    // Both threads must stand just before their requests at once.
    return !por_.Ordered(a.request, b.before_request) && !por_.Ordered(b.request, a.before_request);
  }

  // Whether `requester`'s request waits for `holder`, which holds the requested lock.
  static bool Blocks(const EdgeInstance& requester, const EdgeInstance& holder) {
    return !(requester.request_read && holder.held_read);
  }

  const LockOrderGraph& graph_;
  const PorIndex& por_;
  const LocksetTable& locksets_;
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

std::vector<Finding> PredictDeadlocks(const Trace& trace, const PorIndex& por,
                                      const LocksetTable& locksets, DeadlockSearchStats* stats) {
  const LockOrderGraph graph(trace, por, locksets);
  std::vector<Finding> findings;
  std::map<std::vector<SiteId>, size_t> by_sites;
  uint64_t steps = 0;
  CycleAssignment assignment(graph, por, locksets, &steps);
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
      const EdgeInstance& x = graph.Instance(picked[k]);
      return std::make_pair(trace.site[x.held_acquire], trace.site[x.request]);
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
      const EdgeInstance& x = graph.Instance(picked[(first + n) % picked.size()]);
      finding.events.push_back(x.held_acquire);
      finding.events.push_back(x.request);
      key.push_back(trace.site[x.held_acquire]);
      key.push_back(trace.site[x.request]);
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

}  // namespace pecan
