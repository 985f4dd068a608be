// The writer's watch for a recorded run that can never go on: every live thread blocked in an
// untimed synchronization call (blocked_call.h) and nothing moved for PECAN_DEADLOCK_WAIT_MS.
#pragma once

#include <cstdint>
#include <vector>

#include "recorder/thread_ring.h"
#include "trace_format/trace.h"

namespace pecan::rt {

// A blocked thread as its ring said: by creation serial and code address; the writer turns it
// into the trace's BlockedThreadInfo (thread ids, sites).
struct BlockedThreadState {
  struct Held {
    uint64_t lock = 0;
    uint64_t pc = 0;
    bool shared = false;
  };
  uint32_t serial = 0;
  BlockedOn on = BlockedOn::kUnspecified;
  uint64_t object = 0;  // kJoin: the joined thread's serial
  uint64_t pc = 0;
  std::vector<Held> held;
};

class DeadlockWatch {
 public:
  // `wait_ms` 0 turns the watch off.
  explicit DeadlockWatch(uint32_t wait_ms);

  bool enabled() const { return wait_ns_ > 0; }

  // One look at the rings of the program's threads (finished ones are skipped), cheap unless
  // every thread is blocked; the caller looks every kLookIntervalNs or so. Returns what every
  // thread waits for and holds once they all stayed blocked in the same calls, with no event
  // recorded, for the wait, and the kernel agrees (no other thread, each one asleep); else
  // nothing.
  std::vector<BlockedThreadState> Look(const std::vector<const ThreadRing*>& rings, int64_t now_ns);

  static constexpr int64_t kLookIntervalNs = 100'000'000;

 private:
  struct Seen {
    const ThreadRing* ring = nullptr;
    uint64_t word = 0;
    uint64_t tail = 0;
    bool operator==(const Seen&) const = default;
  };

  int64_t wait_ns_;
  std::vector<Seen> seen_;  // every unfinished ring blocked since since_ns_, as then
  std::vector<Seen> now_;
  int64_t since_ns_ = 0;
};

}  // namespace pecan::rt
