// HeldLocks: a stack of holds per thread; its address set is interned after every change.
#include "analyzer/held_locks.h"

#include <algorithm>

namespace pecan {
namespace {

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

bool LocksExclude(const LockAddressSet& x, const LockAddressSet& y) {
  return SortedIntersect(x.exclusive, y.exclusive) || SortedIntersect(x.exclusive, y.shared) ||
         SortedIntersect(x.shared, y.exclusive);
}

void HeldLocks::Visit(EventIndex i, const Event& e) {
  const bool acquire = IsAcquire(e.kind);
  if (!acquire && !IsRelease(e.kind)) return;
  const ThreadId t = e.thread;
  if (t >= holds_.size()) {
    holds_.resize(t + 1);
    current_.resize(t + 1, 0);
  }
  std::vector<Hold>& holds = holds_[t];
  const bool read_mode = e.kind == EventKind::kReadLock || e.kind == EventKind::kReadUnlock;
  // Innermost first: with nested locking it is the one released.
  auto held = std::find_if(holds.rbegin(), holds.rend(), [&](const Hold& h) {
    return h.lock == e.addr && h.read_mode == read_mode;
  });
  if (acquire) {
    if (held != holds.rend()) {
      ++held->depth;
      return;
    }
    holds.push_back(Hold{e.addr, read_mode, 0, i, e.site});
  } else {
    if (held == holds.rend()) return;  // not held (acquired before recording began)
    if (held->depth > 0) {
      --held->depth;
      return;
    }
    holds.erase(std::next(held).base());
  }
  current_[t] = Intern(holds);
}

uint32_t HeldLocks::Intern(const std::vector<Hold>& holds) {
  if (holds.empty()) return 0;
  LockAddressSet set;
  for (const Hold& h : holds) (h.read_mode ? set.shared : set.exclusive).push_back(h.lock);
  std::sort(set.exclusive.begin(), set.exclusive.end());
  std::sort(set.shared.begin(), set.shared.end());
  std::vector<uint64_t> canonical = set.exclusive;
  canonical.push_back(~uint64_t{0});
  canonical.insert(canonical.end(), set.shared.begin(), set.shared.end());
  auto [it, fresh] =
      by_content_.try_emplace(std::move(canonical), static_cast<uint32_t>(sets_.size()));
  if (fresh) sets_.push_back(std::move(set));
  return it->second;
}

bool HeldLocks::Exclusive(uint32_t a, uint32_t b) {
  if (a == 0 || b == 0) return false;
  if (a > b) std::swap(a, b);
  const uint64_t key = uint64_t{a} << 32 | b;
  Recent& recent = recent_[(key * 0x9E3779B97F4A7C15ull) >> 56];
  if (recent.key == key) return recent.answer;
  auto it = exclusive_.find(key);
  const bool answer = it != exclusive_.end()
                          ? it->second
                          : exclusive_.emplace(key, LocksExclude(sets_[a], sets_[b])).first->second;
  recent = Recent{key, answer};
  return answer;
}

}  // namespace pecan
