// LocksetTable gives, for every event, the set of locks its thread held when it ran (interned:
// events share one id per distinct set) and the outermost lock acquisition (OML) around it.
// Mutexes held in read mode (rwlock readers) do not exclude each other.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

using LocksetId = uint32_t;
inline constexpr LocksetId kEmptyLockset = 0;

struct HeldLock {
  uint64_t lock = 0;       // lock address
  bool read_mode = false;  // held as an rwlock reader
  EventIndex acquired_at = 0;
  bool operator==(const HeldLock&) const = default;
};

// Of(i) is the set held when event i ran: a LOCK's own lock is not in its set (another thread's
// critical section may end just before it), an UNLOCK's lock is; so Of(x) is also the set held
// between x's thread-predecessor and x. A recursive re-acquisition of a held lock is folded
// into the first; a release of a lock not held is ignored. Distinct ids differ in the locks or
// in where they were acquired. OutermostAcquire of an outermost LOCK is therefore empty.
class LocksetTable {
 public:
  explicit LocksetTable(const Trace& trace);
  ~LocksetTable();
  LocksetTable(LocksetTable&&) noexcept;

  LocksetId Of(EventIndex i) const { return of_[i]; }
  // Outermost first. Built on first use and kept (safe to call from several threads).
  const std::vector<HeldLock>& Locks(LocksetId id) const;
  // True when the two events hold a common lock that excludes them (not both in read mode).
  bool Exclusive(EventIndex a, EventIndex b) const;
  // The same test on two interned locksets.
  bool ExclusiveSets(LocksetId a, LocksetId b) const;
  // The id of the set of (lock address, mode) pairs of a lockset, acquisition points ignored:
  // equal ids exclude exactly the same other sets.
  uint32_t AddressSetOf(LocksetId id) const { return address_set_of_[id]; }
  // ExclusiveSets on two AddressSetOf ids.
  bool ExclusiveAddressSets(uint32_t a, uint32_t b) const;
  // Number of lockset ids (0 .. Count()-1; 0 is the empty set): one per acquisition that was not
  // a recursive re-acquisition, plus the sets left after releasing a lock that was not innermost.
  size_t Count() const;
  // The acquisition of the outermost lock held at i, if any (the OML of PECAN section 6).
  std::optional<EventIndex> OutermostAcquire(EventIndex i) const;
  // The release matching an acquisition, if it occurs in the trace.
  std::optional<EventIndex> MatchingRelease(EventIndex acquire) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  const LocksetId* of_ = nullptr;  // views into impl_ for the inline queries
  const uint32_t* address_set_of_ = nullptr;
};

}  // namespace pecan
