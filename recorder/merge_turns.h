// The writer's bookkeeping of whose turn it is. Each stamped event has a number in one
// sequence: the global stamp or an object's sequence (object_sequences.h). An event may be
// written when every earlier number of its sequence has been; a ring whose head must wait
// registers here and is handed back when its turn comes. Only the writer thread uses it.
//
// Why the merge cannot get stuck: every number is taken by a locked instruction (a fetch_add, or
// the exchange that takes an atomic stripe's lock), and those are totally ordered consistently
// with each thread's program order, so the union of program order and all sequences is acyclic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "recorder/event_slot.h"
#include "recorder/object_sequences.h"

namespace pecan::rt {

// An event's place: a global stamp (sequence == kGlobalOrder), or a number in an object's
// sequence (its low kSequenceNumberBits bits).
struct OrderKey {
  static constexpr uint32_t kGlobalOrder = UINT32_MAX;
  uint32_t sequence = kGlobalOrder;
  uint64_t number = 0;
  bool global() const { return sequence == kGlobalOrder; }
};

// The order of the stamped event whose first slot word is `word`.
inline OrderKey OrderKeyOf(uint64_t word) {
  const uint64_t order = SlotLow48(word);
  if (IsObjectOrderedKind(SlotKind(word))) {
    return OrderKey{uint32_t(order >> kSequenceNumberBits), order & kSequenceNumberMask};
  }
  return OrderKey{OrderKey::kGlobalOrder, order};
}

class MergeTurns {
 public:
  enum class Turn {
    kNow,    // the next number of its sequence: write it
    kLater,  // an earlier number is still missing: wait
    kPast,   // its number was given up (its thread crashed, we thought): too late to place
  };

  MergeTurns();

  // Global stamps at or above `stamp_limit` are never due (the end of the recording).
  Turn Check(OrderKey key, uint64_t stamp_limit) const {
    if (key.global()) {
      if (key.number < next_stamp_) return Turn::kPast;
      return key.number == next_stamp_ && key.number < stamp_limit ? Turn::kNow : Turn::kLater;
    }
    const uint64_t ahead = (key.number - next_number_[key.sequence]) & kSequenceNumberMask;
    if (ahead == 0) return Turn::kNow;
    return ahead > kSequenceNumberMask / 2 ? Turn::kPast : Turn::kLater;
  }

  // The event with `key` (whose turn it was) has been written: its sequence moves on, and a ring
  // waiting for the next number becomes ready.
  void Written(OrderKey key) {
    if (key.global()) {
      ++next_stamp_;
      return;
    }
    ++next_number_[key.sequence];
    if (!waiting_[key.sequence].empty()) WakeSequence(key.sequence);
  }

  // Ring `cursor`'s head has `key`, whose turn has not come.
  void Wait(OrderKey key, size_t cursor);

  // A ring whose head's turn has come (object sequences first, then the lowest waiting stamp
  // below `stamp_limit`); false when there is none. The ring is no longer registered as waiting.
  bool TakeReady(uint64_t stamp_limit, size_t& cursor);

  // Forgets every waiting ring (their indices changed); register them again with Wait.
  void ClearWaits();

  uint64_t next_stamp() const { return next_stamp_; }

  // The last drain. True while some object sequence has numbered events (numbered[s]) not yet
  // written.
  bool SequencesBehind(const uint64_t* numbered) const;
  // The last drain, when nothing moved for a while: gives up the numbers that hold the merge up
  // and that no ring holds (their threads died between taking a number and publishing it).
  // `present` lists the numbers of the stamped events the rings still hold. Only absent numbers
  // are skipped: the global stamps below `stamp_limit` up to the next present one, and in each
  // object sequence the numbers up to its next present one (or up to numbered[s]). Returns how
  // many were given up; 0 when nothing can be (the merge is then as far as it will get).
  uint64_t GiveUp(const std::vector<OrderKey>& present, const uint64_t* numbered,
                  uint64_t stamp_limit);

 private:
  struct Waiting {
    uint64_t number;
    size_t cursor;
  };
  struct WaitingStamp {
    uint64_t stamp;
    size_t cursor;
    bool operator>(const WaitingStamp& other) const { return stamp > other.stamp; }
  };

  void WakeSequence(uint32_t sequence);

  uint64_t next_stamp_ = 0;
  std::vector<uint64_t> next_number_;          // per object sequence: numbers written so far
  std::vector<std::vector<Waiting>> waiting_;  // per object sequence: rings waiting for a later one
  std::vector<size_t> ready_;                  // rings whose turn has come
  std::priority_queue<WaitingStamp, std::vector<WaitingStamp>, std::greater<>> waiting_stamps_;
};

}  // namespace pecan::rt
