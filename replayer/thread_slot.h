// The scheduler's record of one thread: its wake-up semaphore and what it is doing. Slots are
// indexed by LogicalThread and live in one fixed array, so the hot path never allocates.
#pragma once

#include <atomic>
#include <cstdint>

#include "replayer/scheduler_types.h"
#include "replayer/turn_semaphore.h"

namespace pecan::replay {

struct alignas(64) ThreadSlot {
  TurnSemaphore wake;
  std::atomic<ThreadActivity> activity{ThreadActivity::kUnattached};
  std::atomic<int32_t> os_tid{0};  // kernel thread id, for the watchdog's look at /proc
  LogicalThread id = kNoThread;
  uint32_t children = 0;  // threads this one created so far (only its own thread touches it)
  // The event the thread waits to execute, for policies (WaitingThreads). Written by the thread
  // itself before it sets `waiting_at_event`, which it clears once it may go on; read only by
  // the turn holder, while the flag is set (and the thread therefore not the holder).
  EventView pending;
  std::atomic<bool> waiting_at_event{false};
  // Set when the thread was let into a blocking call (lock, rwlock) with the turn and has not
  // reported its event yet: the call's effect (a lock taken) exists, the event does not, so
  // the turn must not move on before it does (see Scheduler::HandOverFromIdleHolder).
  std::atomic<bool> owes_event{false};
  // A reserved child whose parent has not executed its FORK yet: the child cannot begin
  // before the FORK, so Scheduler::Settle must not wait for it (see Scheduler::ChildForked).
  std::atomic<bool> awaiting_fork{false};
  // The blocking call the thread is inside (from AcquireTurnFor or BeginBlocking to
  // EndBlocking), for the report of a stuck run. Written by the thread before it sets the flag.
  EventView call;
  std::atomic<bool> in_call{false};
  // The recorder's serial number of the thread (a JOIN names the joined thread by it).
  std::atomic<uint32_t> serial{kNoSerial};
  // Its THREAD_END has run: a join of it returns as soon as the thread is gone.
  std::atomic<bool> ended{false};
  static constexpr uint32_t kNoSerial = UINT32_MAX;
};

}  // namespace pecan::replay
