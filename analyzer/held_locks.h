// HeldLocks: the locks each thread holds, followed event by event in trace order without the
// trace in memory (for the streaming search; LocksetTable is the indexed form). Only the set of
// lock addresses and their modes is kept, interned, which is all lock exclusion looks at.
// The rules are LocksetTable's: a lock is not yet held at its acquisition and still held at its
// release; a recursive re-acquisition folds into the first hold; releasing a lock not held does
// nothing; locks held in read mode (rwlock readers) do not exclude each other.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

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
  // The address set the thread holds now (0: none), before `e` changes it.
  uint32_t Current(ThreadId t) const { return t < current_.size() ? current_[t] : 0; }
  // Feeds the next event in trace order.
  void Visit(const Event& e);
  // True when the two address sets share a lock that excludes (not both in read mode).
  bool Exclusive(uint32_t a, uint32_t b);
  size_t SetCount() const { return sets_.size(); }

 private:
  struct Hold {
    uint64_t lock = 0;
    bool read_mode = false;
    uint32_t depth = 0;  // recursive re-acquisitions folded into this hold
  };
  struct VectorHash {
    size_t operator()(const std::vector<uint64_t>& v) const {
      uint64_t h = v.size();
      for (uint64_t x : v) h = h * 0x9E3779B97F4A7C15ull ^ x;
      return static_cast<size_t>(h);
    }
  };
  uint32_t Intern(const std::vector<Hold>& holds);

  std::vector<std::vector<Hold>> holds_;  // per thread, outermost first
  std::vector<uint32_t> current_;         // per thread: the id of its holds' address set
  std::vector<LockAddressSet> sets_{LockAddressSet{}};
  std::unordered_map<std::vector<uint64_t>, uint32_t, VectorHash> by_content_;
  std::unordered_map<uint64_t, bool> exclusive_;  // (a, b) -> answer
};

}  // namespace pecan
