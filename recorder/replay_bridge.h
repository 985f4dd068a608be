// The runtime's side of replay mode (PECAN_MODE=replay): it records as usual and, before each
// event takes effect, asks the replayer's scheduler for the turn (replayer/replay_hooks.h).
#pragma once

#include <pthread.h>

#include <cstdint>

#include "trace_format/event_kind.h"

namespace pecan::rt {

// Loads the clip named by PECAN_CLIP and attaches the calling (main) thread to the schedule;
// applies the clip's recorder settings to `func_events` / `stack_accesses`, so the run yields
// the recorded run's sequence of events. An unusable clip ends the process with an ERROR
// verdict. Call once at start-up, before the first event is recorded.
void StartReplayMode(bool& func_events, bool& stack_accesses);
bool ReplayModeActive();

// The hooks of thread_state.h (called only where kGateReplay is open). Each runs with the
// thread's gates closed, so the scheduler's own work is neither recorded nor scheduled.
void ReplayBeforeEvent(EventKind kind, uint64_t pc, uint64_t target, uint64_t size);
// A compare-exchange: executes as ATOMIC_RMW or, when it fails, as ATOMIC_LOAD.
void ReplayBeforeCompareExchange(uint64_t pc, uint64_t target, uint64_t size);
void ReplayAcquireTurn(EventKind upcoming, uint64_t pc, uint64_t target);
void ReplayBeginBlocking(EventKind call, uint64_t pc, uint64_t target);
void ReplayEndBlocking();

// Thread lifecycle: the creator reserves the child's schedule identity before the thread
// exists; the child attaches with it before its THREAD_BEGIN and detaches after THREAD_END.
uint32_t ReplayReserveChild(uint32_t serial);
void ReplayCancelChild(uint32_t child);
void ReplayChildForked(uint32_t child);  // after the parent's FORK event, before the child runs
void ReplayAttachThread(uint32_t child);
void ReplayDetachThread();

// True while threads run in the schedule's order (a condition wait is then replayed as
// release, wait for the turn, re-acquire).
bool ReplayScheduling();
// True while a replay that looked stuck runs freely to see whether it stays stuck: a condition
// wait the schedule still held then waits for real (no notify released it).
bool ReplayConfirmingStuck();

// The process that replays is ending (calls from a forked child are ignored).
void ReplayOnProgramExit(int status);
void ReplayOnFatalSignal(int signal);
void ReplayOnAssertionFailure(const char* assertion, const char* file, unsigned line,
                              const char* function);

// Ends a replay that cannot run with an ERROR verdict saying `reason`.
[[noreturn]] void ReplayCannotStart(const char* reason);

}  // namespace pecan::rt
