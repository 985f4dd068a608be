// LocksetTable: one pass keeping each thread's stack of held locks as a node in a tree of
// acquisitions (a node = its parent's locks plus one), so an event stores one id and nothing is
// allocated per critical section; each node also knows its set of lock addresses, interned
// separately, which is all lock exclusion looks at.
#include "analyzer/lockset_table.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "analyzer/held_locks.h"

namespace pecan {
namespace {

constexpr EventIndex kNoRelease = ~EventIndex{0};

// One held lock on top of the parent node's locks.
struct Node {
  LocksetId parent = kEmptyLockset;
  uint64_t lock = 0;
  EventIndex acquired_at = 0;
  uint32_t address_set = 0;
  bool read_mode = false;
  uint32_t depth = 0;  // recursive re-acquisitions folded into this hold
};

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.first * 0x9E3779B97F4A7C15ull ^ p.second);
  }
};

struct LocksetData {
  std::vector<LocksetId> of;             // per event
  std::vector<Node> nodes;               // by id; [0] is the empty set
  std::vector<uint32_t> address_set_of;  // by id: nodes[id].address_set, for the inline query
  std::vector<LockAddressSet> address_sets;
  std::vector<std::pair<EventIndex, EventIndex>> releases;  // (acquire, release), by acquire
  // Locks() answers, built on first use; the mutex lets threads share the table (map nodes do
  // not move, so a returned reference stays valid).
  std::mutex materialized_mutex;
  std::unordered_map<LocksetId, std::vector<HeldLock>> materialized;
  std::vector<int8_t> exclusive_cache;  // address-set pair -> 1 when they exclude
  size_t exclusive_cache_width = 0;
};

class LocksetBuilder {
 public:
  LocksetBuilder(const Trace& trace, LocksetData& out) : trace_(trace), out_(out) {}

  void Build() {
    out_.nodes.push_back(Node{});
    out_.address_sets.push_back(LockAddressSet{});
    const size_t n_events = trace_.size_events();
    out_.of.resize(n_events);
    for (EventIndex i = 0; i < n_events; ++i) {
      const ThreadId t = trace_.thread[i];
      if (t >= current_.size()) current_.resize(t + 1, kEmptyLockset);
      const EventKind kind = trace_.kind[i];
      // The set held when the event ran: a lock is not yet held at its acquisition, and still
      // held at its release.
      out_.of[i] = current_[t];
      if (IsAcquire(kind)) {
        Acquire(t, i);
      } else if (IsRelease(kind)) {
        Release(t, i);
      }
    }
  }

 private:
  void Acquire(ThreadId t, EventIndex i) {
    const bool read_mode = trace_.kind[i] == EventKind::kReadLock;
    const uint64_t lock = trace_.addr[i];
    for (LocksetId id = current_[t]; id != kEmptyLockset; id = out_.nodes[id].parent) {
      Node& node = out_.nodes[id];
      if (node.lock == lock && node.read_mode == read_mode) {
        ++node.depth;  // recursive: folded into the existing hold
        return;
      }
    }
    current_[t] = Push(current_[t], lock, read_mode, i);
    out_.releases.emplace_back(i, kNoRelease);
  }

  void Release(ThreadId t, EventIndex i) {
    const bool read_mode = trace_.kind[i] == EventKind::kReadUnlock;
    const uint64_t lock = trace_.addr[i];
    // Search from the innermost hold: with nested locking it is the one released.
    std::vector<LocksetId> above;  // holds above the released one, innermost first
    for (LocksetId id = current_[t]; id != kEmptyLockset; id = out_.nodes[id].parent) {
      Node& node = out_.nodes[id];
      if (node.lock != lock || node.read_mode != read_mode) {
        above.push_back(id);
        continue;
      }
      if (node.depth > 0) {
        --node.depth;
        return;
      }
      RecordRelease(node.acquired_at, i);
      // Rebuild the holds above it (only for non-nested releases) on top of its parent.
      LocksetId rebuilt = node.parent;
      for (auto it = above.rbegin(); it != above.rend(); ++it) {
        const Node copy = out_.nodes[*it];
        rebuilt = Push(rebuilt, copy.lock, copy.read_mode, copy.acquired_at);
        out_.nodes[rebuilt].depth = copy.depth;
      }
      current_[t] = rebuilt;
      return;
    }
    // Releasing a lock not held (e.g. acquired before recording began): nothing to drop.
  }

  LocksetId Push(LocksetId parent, uint64_t lock, bool read_mode, EventIndex acquired_at) {
    const LocksetId id = static_cast<LocksetId>(out_.nodes.size());
    out_.nodes.push_back(Node{parent, lock, acquired_at,
                              AddressSetWith(out_.nodes[parent].address_set, lock, read_mode),
                              read_mode, 0});
    return id;
  }

  // The address set `base` plus one lock, interned.
  uint32_t AddressSetWith(uint32_t base, uint64_t lock, bool read_mode) {
    const uint64_t step = lock * 2 + (read_mode ? 1 : 0);
    auto [it, inserted] = children_.try_emplace({base, step}, 0);
    if (!inserted) return it->second;
    LockAddressSet set = out_.address_sets[base];
    std::vector<uint64_t>& into = read_mode ? set.shared : set.exclusive;
    into.insert(std::lower_bound(into.begin(), into.end(), lock), lock);
    // The same set reached by acquiring in another order gets the same id.
    std::vector<uint64_t> canonical = set.exclusive;
    canonical.push_back(~uint64_t{0});
    canonical.insert(canonical.end(), set.shared.begin(), set.shared.end());
    auto [existing, fresh] =
        by_content_.try_emplace(canonical, static_cast<uint32_t>(out_.address_sets.size()));
    if (fresh) out_.address_sets.push_back(std::move(set));
    it->second = existing->second;
    return existing->second;
  }

  void RecordRelease(EventIndex acquire, EventIndex release) {
    auto it = std::lower_bound(out_.releases.begin(), out_.releases.end(),
                               std::make_pair(acquire, EventIndex{0}));
    if (it != out_.releases.end() && it->first == acquire) it->second = release;
  }

  struct VectorHash {
    size_t operator()(const std::vector<uint64_t>& v) const {
      uint64_t h = v.size();
      for (uint64_t x : v) h = h * 0x9E3779B97F4A7C15ull ^ x;
      return static_cast<size_t>(h);
    }
  };

  const Trace& trace_;
  LocksetData& out_;
  std::vector<LocksetId> current_;
  std::unordered_map<std::pair<uint64_t, uint64_t>, uint32_t, PairHash> children_;
  std::unordered_map<std::vector<uint64_t>, uint32_t, VectorHash> by_content_;
};

}  // namespace

struct LocksetTable::Impl : LocksetData {};

LocksetTable::LocksetTable(const Trace& trace) : impl_(std::make_unique<Impl>()) {
  LocksetBuilder(trace, *impl_).Build();
  of_ = impl_->of.data();
  impl_->address_set_of.reserve(impl_->nodes.size());
  for (const Node& node : impl_->nodes) impl_->address_set_of.push_back(node.address_set);
  address_set_of_ = impl_->address_set_of.data();
  // A table of answers for the common case of few distinct address sets, filled now so that
  // queries never write (the table may be shared by threads searching in parallel).
  const size_t sets = impl_->address_sets.size();
  if (sets <= 512) {
    impl_->exclusive_cache_width = sets;
    impl_->exclusive_cache.resize(sets * sets);
    for (size_t a = 0; a < sets; ++a) {
      for (size_t b = 0; b < sets; ++b) {
        impl_->exclusive_cache[a * sets + b] =
            LocksExclude(impl_->address_sets[a], impl_->address_sets[b]) ? 1 : 0;
      }
    }
  }
}

LocksetTable::~LocksetTable() = default;
LocksetTable::LocksetTable(LocksetTable&&) noexcept = default;

const std::vector<HeldLock>& LocksetTable::Locks(LocksetId id) const {
  static const std::vector<HeldLock> kNone;
  if (id == kEmptyLockset) return kNone;
  const std::lock_guard<std::mutex> lock(impl_->materialized_mutex);
  auto [it, inserted] = impl_->materialized.try_emplace(id);
  if (inserted) {
    for (LocksetId n = id; n != kEmptyLockset; n = impl_->nodes[n].parent) {
      const Node& node = impl_->nodes[n];
      it->second.push_back(HeldLock{node.lock, node.read_mode, node.acquired_at});
    }
    std::reverse(it->second.begin(), it->second.end());  // outermost first
  }
  return it->second;
}

bool LocksetTable::Exclusive(EventIndex a, EventIndex b) const {
  return ExclusiveSets(of_[a], of_[b]);
}

bool LocksetTable::ExclusiveSets(LocksetId a, LocksetId b) const {
  if (a == kEmptyLockset || b == kEmptyLockset) return false;
  return ExclusiveAddressSets(address_set_of_[a], address_set_of_[b]);
}

bool LocksetTable::ExclusiveAddressSets(uint32_t sa, uint32_t sb) const {
  if (sa == 0 || sb == 0) return false;
  if (impl_->exclusive_cache_width != 0) {
    return impl_->exclusive_cache[sa * impl_->exclusive_cache_width + sb] != 0;
  }
  return LocksExclude(impl_->address_sets[sa], impl_->address_sets[sb]);
}

std::optional<EventIndex> LocksetTable::OutermostAcquire(EventIndex i) const {
  LocksetId id = of_[i];
  if (id == kEmptyLockset) return std::nullopt;
  while (impl_->nodes[id].parent != kEmptyLockset) id = impl_->nodes[id].parent;
  return impl_->nodes[id].acquired_at;
}

std::optional<EventIndex> LocksetTable::MatchingRelease(EventIndex acquire) const {
  const auto& releases = impl_->releases;
  auto it =
      std::lower_bound(releases.begin(), releases.end(), std::make_pair(acquire, EventIndex{0}));
  if (it == releases.end() || it->first != acquire) return std::nullopt;
  if (it->second == kNoRelease) return std::nullopt;
  return it->second;
}

size_t LocksetTable::Count() const {
  return impl_->nodes.size();
}

}  // namespace pecan
