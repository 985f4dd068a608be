// Waiting rings per sequence: a heap for the global stamp, a short list per object sequence.
#include "recorder/merge_turns.h"

#include <algorithm>

namespace pecan::rt {

MergeTurns::MergeTurns() : next_number_(kObjectSequences, 0), waiting_(kObjectSequences) {}

void MergeTurns::Wait(OrderKey key, size_t cursor) {
  if (key.global()) {
    waiting_stamps_.push(WaitingStamp{key.number, cursor});
  } else if (Check(key, UINT64_MAX) == Turn::kLater) {
    waiting_[key.sequence].push_back(Waiting{key.number, cursor});
  } else {
    ready_.push_back(cursor);
  }
}

void MergeTurns::WakeSequence(uint32_t sequence) {
  std::vector<Waiting>& waiting = waiting_[sequence];
  const uint64_t next = next_number_[sequence] & kSequenceNumberMask;
  for (size_t i = 0; i < waiting.size(); ++i) {
    if (waiting[i].number == next) {
      ready_.push_back(waiting[i].cursor);
      waiting[i] = waiting.back();
      waiting.pop_back();
      return;  // numbers are unique: one ring at most
    }
  }
}

bool MergeTurns::TakeReady(uint64_t stamp_limit, size_t& cursor) {
  if (!ready_.empty()) {
    cursor = ready_.back();
    ready_.pop_back();
    return true;
  }
  if (waiting_stamps_.empty()) return false;
  const WaitingStamp top = waiting_stamps_.top();
  if (top.stamp > next_stamp_ || top.stamp >= stamp_limit) return false;
  waiting_stamps_.pop();
  cursor = top.cursor;
  return true;
}

void MergeTurns::ClearWaits() {
  for (std::vector<Waiting>& waiting : waiting_) waiting.clear();
  ready_.clear();
  waiting_stamps_ = {};
}

bool MergeTurns::SequencesBehind(const uint64_t* numbered) const {
  for (uint32_t s = 0; s < kObjectSequences; ++s) {
    if (next_number_[s] < numbered[s]) return true;
  }
  return false;
}

uint64_t MergeTurns::GiveUp(const std::vector<OrderKey>& present, const uint64_t* numbered,
                            uint64_t stamp_limit) {
  // Per sequence, how far the next present number is ahead of the next one due.
  uint64_t stamp_skip = stamp_limit > next_stamp_ ? stamp_limit - next_stamp_ : 0;
  std::vector<uint64_t> skip_of(kObjectSequences, UINT64_MAX);
  for (const OrderKey& key : present) {
    if (key.global()) {
      if (key.number >= next_stamp_) stamp_skip = std::min(stamp_skip, key.number - next_stamp_);
    } else {
      const uint64_t ahead = (key.number - next_number_[key.sequence]) & kSequenceNumberMask;
      if (ahead <= kSequenceNumberMask / 2) {
        skip_of[key.sequence] = std::min(skip_of[key.sequence], ahead);
      }
    }
  }
  uint64_t given_up = stamp_skip;
  next_stamp_ += stamp_skip;
  for (uint32_t s = 0; s < kObjectSequences; ++s) {
    uint64_t skip = skip_of[s];
    if (skip == UINT64_MAX) {
      // Nothing of this sequence is left in any ring: what it handed out beyond is lost.
      skip = numbered[s] > next_number_[s] ? numbered[s] - next_number_[s] : 0;
    }
    if (skip == 0) continue;
    next_number_[s] += skip;
    given_up += skip;
    if (!waiting_[s].empty()) WakeSequence(s);
  }
  return given_up;
}

}  // namespace pecan::rt
