// HeldLocks: the locks each thread holds, followed event by event in trace order without the
// trace in memory (for the streaming search; LocksetTable is the indexed form). Their set of lock
// addresses and modes is interned, which is all lock exclusion looks at; each hold also knows
// where it was taken (lock-order deadlocks nest on it).
// The rules are LocksetTable's: a lock is not yet held at its acquisition and still held at its
// release; a recursive re-acquisition folds into the first hold; releasing a lock not held does
// nothing; locks held in read mode (rwlock readers) do not exclude each other.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace_format/event_kind.h"
#include "trace_format/trace.h"

namespace pecan {

// The locks a thread holds, as lock exclusion sees them: addresses held in write mode and in read
// mode, each sorted (LocksetTable and HeldLocks intern them).
struct LockAddressSet {
  std::vector<uint64_t> exclusive;
  std::vector<uint64_t> shared;
};

// A common lock excludes unless both hold it in read mode.
bool LocksExclude(const LockAddressSet& x, const LockAddressSet& y);

class HeldLocks {
 public:
  struct Hold {
    uint64_t lock = 0;
    bool read_mode = false;
    uint32_t depth = 0;  // recursive re-acquisitions folded into this hold
    EventIndex acquired_at = 0;
    SiteId site = 0;  // of the acquisition
  };

  // The address set the thread holds now (0: none), before `e` changes it.
  uint32_t Current(ThreadId t) const { return t < current_.size() ? current_[t] : 0; }
  // The thread's holds now, outermost first (LocksetTable::Locks' order).
  const std::vector<Hold>& Holds(ThreadId t) const {
    static const std::vector<Hold> kNone;
    return t < holds_.size() ? holds_[t] : kNone;
  }
  // Feeds the next event in trace order, event `i` of the trace. Inline: most events are not lock
  // events, and both passes feed every event.
  void Visit(EventIndex i, const Event& e) {
    if (IsAcquire(e.kind) || IsRelease(e.kind)) VisitLockEvent(i, e);
  }
  // True when the two address sets share a lock that excludes (not both in read mode). Inline for
  // the first kDense sets asked before (nearly every program's all): the searches ask for every
  // unit and class.
  bool Exclusive(uint32_t a, uint32_t b) {
    if (a == 0 || b == 0) return false;
    if (a > b) std::swap(a, b);
    if (b < kDense && dense_[size_t{a} * kDense + b] != 0)
      return dense_[size_t{a} * kDense + b] == 2;
    return ExclusiveAsked(a, b);
  }
  size_t SetCount() const { return sets_.size(); }
  // Whether address set `set` holds `lock`, in either mode.
  bool Contains(uint32_t set, uint64_t lock) const;

 private:
  struct VectorHash {
    size_t operator()(const std::vector<uint64_t>& v) const {
      uint64_t h = v.size();
      for (uint64_t x : v) h = h * 0x9E3779B97F4A7C15ull ^ x;
      return static_cast<size_t>(h);
    }
  };
  void VisitLockEvent(EventIndex i, const Event& e);
  // Exclusive for 0 < a <= b that the dense table does not answer yet (it fills the table).
  bool ExclusiveAsked(uint32_t a, uint32_t b);
  uint32_t Intern(const std::vector<Hold>& holds);

  std::vector<std::vector<Hold>> holds_;  // per thread, outermost first
  std::vector<uint32_t> current_;         // per thread: the id of its holds' address set
  std::vector<LockAddressSet> sets_{LockAddressSet{}};
  std::unordered_map<std::vector<uint64_t>, uint32_t, VectorHash> by_content_;
  std::vector<uint64_t> canonical_;  // Intern's buffer
  // The latest set changes by a hash of (set before, lock, acquire or release, mode): the set
  // after is a function of them, and a program takes the same locks over and over.
  struct Step {
    uint32_t before = ~0u;  // ~0: none
    uint32_t after = 0;
    uint64_t lock = 0;
    uint8_t op = 0;  // bit 0: acquire, bit 1: read mode
  };
  std::array<Step, 256> steps_{};
  std::unordered_map<uint64_t, bool> exclusive_;  // (a, b) -> answer
  // The latest answers by a hash of (a, b): most questions repeat the last few.
  struct Recent {
    uint64_t key = 0;  // 0: none (a and b are never both 0 here)
    bool answer = false;
  };
  std::array<Recent, 256> recent_{};
  // Answers for sets a <= b < kDense: 0 not asked yet, 1 no, 2 yes (64 KiB).
  static constexpr uint32_t kDense = 256;
  std::vector<uint8_t> dense_ = std::vector<uint8_t>(size_t{kDense} * kDense, 0);
};

}  // namespace pecan
