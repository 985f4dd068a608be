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

void HeldLocks::VisitLockEvent(EventIndex i, const Event& e) {
  const bool acquire = IsAcquire(e.kind);
  const ThreadId t = e.thread;
  if (t >= holds_.size()) {
    holds_.resize(t + 1);
    current_.resize(t + 1, 0);
  }
  std::vector<Hold>& holds = holds_[t];
  const bool read_mode = e.kind == EventKind::kReadLock || e.kind == EventKind::kReadUnlock;
  const uint32_t before = current_[t];
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
  const uint8_t op = static_cast<uint8_t>((acquire ? 1 : 0) | (read_mode ? 2 : 0));
  Step& step = steps_[((uint64_t{before} << 2 | op) * 0x9E3779B97F4A7C15ull ^ e.addr) *
                          0xBF58476D1CE4E5B9ull >>
                      56];
  if (step.before == before && step.lock == e.addr && step.op == op) {
    current_[t] = step.after;
    return;
  }
  current_[t] = Intern(holds);
  step = Step{before, current_[t], e.addr, op};
}

uint32_t HeldLocks::Intern(const std::vector<Hold>& holds) {
  if (holds.empty()) return 0;
  // The canonical key: write-mode addresses sorted, a separator, read-mode addresses sorted. Built
  // in a reused buffer: a lock event allocates only when its set is new.
  std::vector<uint64_t>& key = canonical_;
  key.clear();
  for (const Hold& h : holds)
    if (!h.read_mode) key.push_back(h.lock);
  const size_t exclusive = key.size();
  std::sort(key.begin(), key.end());
  key.push_back(~uint64_t{0});
  for (const Hold& h : holds)
    if (h.read_mode) key.push_back(h.lock);
  std::sort(key.begin() + static_cast<std::ptrdiff_t>(exclusive) + 1, key.end());
  if (auto found = by_content_.find(key); found != by_content_.end()) return found->second;
  LockAddressSet set;
  set.exclusive.assign(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(exclusive));
  set.shared.assign(key.begin() + static_cast<std::ptrdiff_t>(exclusive) + 1, key.end());
  const uint32_t id = static_cast<uint32_t>(sets_.size());
  sets_.push_back(std::move(set));
  by_content_.emplace(key, id);
  return id;
}

bool HeldLocks::Contains(uint32_t set, uint64_t lock) const {
  const LockAddressSet& s = sets_[set];
  return std::binary_search(s.exclusive.begin(), s.exclusive.end(), lock) ||
         std::binary_search(s.shared.begin(), s.shared.end(), lock);
}

bool HeldLocks::ExclusiveAsked(uint32_t a, uint32_t b) {
  uint8_t* dense = b < kDense ? &dense_[size_t{a} * kDense + b] : nullptr;
  const uint64_t key = uint64_t{a} << 32 | b;
  Recent& recent = recent_[(key * 0x9E3779B97F4A7C15ull) >> 56];
  if (recent.key == key) return recent.answer;
  auto it = exclusive_.find(key);
  const bool answer = it != exclusive_.end()
                          ? it->second
                          : exclusive_.emplace(key, LocksExclude(sets_[a], sets_[b])).first->second;
  recent = Recent{key, answer};
  if (dense != nullptr) *dense = answer ? 2 : 1;
  return answer;
}

}  // namespace pecan
