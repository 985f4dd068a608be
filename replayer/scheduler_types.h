// Plain types shared by the replay scheduler's mechanism and its policies: thread identities,
// the event a thread is about to execute, what a thread is doing, and why a run was stopped.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "trace_format/event_kind.h"

namespace pecan::replay {

// A thread as the schedule names it (for clips: the clip's thread id, found by creation path).
using LogicalThread = uint32_t;
inline constexpr LogicalThread kNoThread = std::numeric_limits<LogicalThread>::max();

// What a thread reports at an instrumented event, before the event takes effect.
struct EventView {
  EventKind kind = EventKind::kUnspecified;
  uint64_t pc = 0;    // the raw site, mapped the way the recorder maps it
  uint64_t addr = 0;  // runtime address of the target (memory, lock, ...)
  uint32_t size = 0;
  // A compare-exchange reports kind ATOMIC_RMW before it runs; if it fails it only reads, and
  // the recording has ATOMIC_LOAD there. Either kind matches.
  bool compare_exchange = false;
  // Reported before a blocking call (Scheduler::AcquireTurnFor): a lock not yet acquired, a
  // condition wait not yet returned. The same event is reported again once it took effect.
  bool blocking = false;
};

// What a thread known to the scheduler is doing right now (the watchdog reads it).
enum class ThreadActivity : uint8_t {
  kUnattached,          // slot not in use (yet)
  kStarting,            // reserved by its parent, its thread not attached yet
  kRunning,             // executing program code between events
  kWaitingForTurn,      // sleeping on its semaphore until the schedule reaches it
  kBlockedHoldingTurn,  // inside a real lock/join/semaphore call it was given the turn for
  kBlocked,             // inside a real blocking call made without the turn (barrier wait)
  kExited,
};

std::string_view ThreadActivityName(ThreadActivity activity);

// What a thread at a blocking event waits for beyond its turn, as the policy's model of the
// program's synchronization knows it (SyncModel): a lock and who holds it, or a condition.
struct WaitTarget {
  enum class Object : uint8_t { kNone, kLock, kReadLock, kCondition };
  Object object = Object::kNone;
  uint64_t address = 0;
  LogicalThread holder = kNoThread;  // the lock's (write) holder
  uint64_t holder_pc = 0;            // where the holder took it
  uint32_t readers = 0;              // read holders of an rwlock
};

// One thread of a run stopped as stuck (deadlock or hang), for the report that says who waits
// for what.
struct StuckThread {
  LogicalThread id = kNoThread;
  std::string name;
  ThreadActivity activity = ThreadActivity::kUnattached;
  bool at_event = false;  // waits for the turn at `event`
  bool in_call = false;  // inside the real blocking call that reports `event` when it returns
  EventView event;
  WaitTarget target;
  std::string holder_name;  // of target.holder
  // Of this thread's `recent_events` events among the run's last ones, how many were at its
  // latest site (`latest`): a spin.
  uint32_t recent_repeats = 0;
  uint32_t recent_events = 0;
  EventView latest;
};

enum class StopCause : uint8_t {
  kDivergence,      // a thread executed an event the schedule did not expect
  kDeadlock,        // every live thread waits and nothing moves
  kTimeBound,       // the schedule did not finish in time
  kAnomalyRefuted,  // the anomaly's events ran, but not on the same location
  kThreadVanished,  // a thread ended while the schedule still had steps for it
  kProgramExited,   // the process exited before the schedule ended
  kProgramFailed,   // the process crashed or failed an assertion before the anomaly formed
  kInternal,        // the runtime could not follow the schedule (limits, bad clip)
};

std::string_view StopCauseName(StopCause cause);

// Why scheduling ended early. Every cause except kInternal means "infeasible".
struct StopReport {
  StopCause cause = StopCause::kInternal;
  std::string reason;           // one line for the user
  uint64_t steps_executed = 0;  // schedule position when it stopped
};

}  // namespace pecan::replay
