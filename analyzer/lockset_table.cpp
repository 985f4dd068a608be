// LocksetTable: one pass keeping each thread's stack of held locks; every distinct stack is
// interned once, and each event stores only the id of the stack in force at it.
#include "analyzer/lockset_table.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace pecan {
namespace {

struct HeldLockHash {
  size_t operator()(const std::vector<HeldLock>& locks) const {
    size_t h = locks.size();
    for (const HeldLock& l : locks) {
      h = h * 0x9E3779B97F4A7C15ull ^ (l.lock + (l.read_mode ? 1 : 0));
      h = h * 0x9E3779B97F4A7C15ull ^ l.acquired_at;
    }
    return h;
  }
};

// One lock held by a thread, with how often it was re-acquired while held (recursive mutexes;
// the recorder folds these, STD input may not).
struct StackEntry {
  HeldLock held;
  uint32_t depth = 1;
};

}  // namespace

namespace {

struct LocksetData {
  std::vector<LocksetId> of;                        // per event
  std::vector<std::vector<HeldLock>> locksets;      // by id; [0] is the empty set
  std::vector<std::vector<uint64_t>> exclusive;     // by id: sorted write-mode lock addresses
  std::vector<std::vector<uint64_t>> shared;        // by id: sorted read-mode lock addresses
  std::vector<std::pair<EventIndex, EventIndex>> releases;  // (acquire, release), by acquire
};

}  // namespace

struct LocksetTable::Impl : LocksetData {};

namespace {

class LocksetBuilder {
 public:
  LocksetBuilder(const Trace& trace, LocksetData& out) : trace_(trace), out_(out) {}

  void Build() {
    Intern({});
    const size_t n_events = trace_.size_events();
    out_.of.resize(n_events);
    for (EventIndex i = 0; i < n_events; ++i) {
      const ThreadId t = trace_.thread[i];
      if (t >= stacks_.size()) {
        stacks_.resize(t + 1);
        current_.resize(t + 1, kEmptyLockset);
      }
      const EventKind kind = trace_.kind[i];
      // The set held when the event ran: a lock is not yet held at its acquisition, and still
      // held at its release.
      if (IsAcquire(kind)) {
        out_.of[i] = current_[t];
        Acquire(t, i);
      } else if (IsRelease(kind)) {
        out_.of[i] = current_[t];
        Release(t, i);
      } else {
        out_.of[i] = current_[t];
      }
    }
  }

 private:
  void Acquire(ThreadId t, EventIndex i) {
    std::vector<StackEntry>& stack = stacks_[t];
    const bool read_mode = trace_.kind[i] == EventKind::kReadLock;
    for (StackEntry& e : stack) {
      if (e.held.lock == trace_.addr[i] && e.held.read_mode == read_mode) {
        ++e.depth;
        return;
      }
    }
    stack.push_back(StackEntry{HeldLock{trace_.addr[i], read_mode, i}, 1});
    out_.releases.emplace_back(i, kNoRelease);
    Refresh(t);
  }

  void Release(ThreadId t, EventIndex i) {
    std::vector<StackEntry>& stack = stacks_[t];
    const bool read_mode = trace_.kind[i] == EventKind::kReadUnlock;
    // Search from the top: with nested locking the released lock is the innermost one.
    for (size_t k = stack.size(); k-- > 0;) {
      StackEntry& e = stack[k];
      if (e.held.lock != trace_.addr[i] || e.held.read_mode != read_mode) continue;
      if (--e.depth > 0) return;
      RecordRelease(e.held.acquired_at, i);
      stack.erase(stack.begin() + static_cast<std::ptrdiff_t>(k));
      Refresh(t);
      return;
    }
    // Releasing a lock not held (e.g. acquired before recording began): nothing to drop.
  }

  void RecordRelease(EventIndex acquire, EventIndex release) {
    auto it = std::lower_bound(out_.releases.begin(), out_.releases.end(),
                               std::make_pair(acquire, EventIndex{0}));
    if (it != out_.releases.end() && it->first == acquire) it->second = release;
  }

  void Refresh(ThreadId t) {
    std::vector<HeldLock> locks;
    locks.reserve(stacks_[t].size());
    for (const StackEntry& e : stacks_[t]) locks.push_back(e.held);
    current_[t] = Intern(std::move(locks));
  }

  LocksetId Intern(std::vector<HeldLock> locks) {
    auto it = ids_.find(locks);
    if (it != ids_.end()) return it->second;
    const LocksetId id = static_cast<LocksetId>(out_.locksets.size());
    std::vector<uint64_t> exclusive;
    std::vector<uint64_t> shared;
    for (const HeldLock& l : locks) (l.read_mode ? shared : exclusive).push_back(l.lock);
    std::sort(exclusive.begin(), exclusive.end());
    std::sort(shared.begin(), shared.end());
    out_.exclusive.push_back(std::move(exclusive));
    out_.shared.push_back(std::move(shared));
    ids_.emplace(locks, id);
    out_.locksets.push_back(std::move(locks));
    return id;
  }

  const Trace& trace_;
  LocksetData& out_;
  std::vector<std::vector<StackEntry>> stacks_;
  std::vector<LocksetId> current_;
  std::unordered_map<std::vector<HeldLock>, LocksetId, HeldLockHash> ids_;

 public:
  static constexpr EventIndex kNoRelease = ~EventIndex{0};
};

bool SortedIntersect(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

}  // namespace

LocksetTable::LocksetTable(const Trace& trace) : impl_(std::make_unique<Impl>()) {
  LocksetBuilder(trace, *impl_).Build();
}

LocksetTable::~LocksetTable() = default;
LocksetTable::LocksetTable(LocksetTable&&) noexcept = default;

LocksetId LocksetTable::Of(EventIndex i) const { return impl_->of[i]; }

const std::vector<HeldLock>& LocksetTable::Locks(LocksetId id) const {
  return impl_->locksets[id];
}

bool LocksetTable::Exclusive(EventIndex a, EventIndex b) const {
  return ExclusiveSets(impl_->of[a], impl_->of[b]);
}

bool LocksetTable::ExclusiveSets(LocksetId a, LocksetId b) const {
  if (a == kEmptyLockset || b == kEmptyLockset) return false;
  // A common lock excludes unless both hold it in read mode.
  const auto& ea = impl_->exclusive[a];
  const auto& eb = impl_->exclusive[b];
  return SortedIntersect(ea, eb) || SortedIntersect(ea, impl_->shared[b]) ||
         SortedIntersect(impl_->shared[a], eb);
}

std::optional<EventIndex> LocksetTable::OutermostAcquire(EventIndex i) const {
  const auto& locks = impl_->locksets[impl_->of[i]];
  if (locks.empty()) return std::nullopt;
  return locks.front().acquired_at;
}

std::optional<EventIndex> LocksetTable::MatchingRelease(EventIndex acquire) const {
  const auto& releases = impl_->releases;
  auto it = std::lower_bound(releases.begin(), releases.end(),
                             std::make_pair(acquire, EventIndex{0}));
  if (it == releases.end() || it->first != acquire) return std::nullopt;
  if (it->second == LocksetBuilder::kNoRelease) return std::nullopt;
  return it->second;
}

size_t LocksetTable::Count() const { return impl_->locksets.size(); }

}  // namespace pecan
