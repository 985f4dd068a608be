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
};

}  // namespace pecan::replay
