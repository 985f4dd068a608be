// The runtime's lifecycle: start-up from the first __tsan_init (or interposed call), the end of
// the recording on every way a process ends, and the fork protocol.
#pragma once

#include <cstdint>

#include "recorder/runtime_config.h"
#include "trace_format/trace.h"

namespace pecan::rt {

// Reads the environment and, in record mode, opens the trace, starts the writer thread and
// begins recording the calling thread. Idempotent and cheap after the first call.
void InitializeRuntime();

// Valid after InitializeRuntime (defaults before).
const RuntimeConfig& Config();

// True when this process (not a forked child under PECAN_FORK=stop) is recording.
bool RecordingThisProcess();

// Writes everything recorded so far and the footer with `exit`. Safe from any thread, signal
// handlers included; waits at most `max_wait_ms` for the writer. Later calls do nothing.
void FinishRecording(const ProgramExitInfo& exit, int64_t max_wait_ms);

// Ends the recording for a process that is about to end with `status` (exit paths).
void FinishRecordingAtExit(int status);

// The initial thread called pthread_exit: once every other program thread has ended, the
// process must exit with status 0 (our writer thread would otherwise keep it alive).
void NoteInitialThreadExited();
bool InitialThreadExited();

// True on the writer thread (a fault there must not wait for itself).
bool OnWriterThread();

// fork(): the runtime's locks are held across the real fork; the child then stops recording
// or starts its own trace (PECAN_FORK=follow).
void PrepareFork();
void AfterForkInParent();
void AfterForkInChild();

inline constexpr int64_t kExitWaitMs = 120'000;   // normal exit: the writer finishes the file
inline constexpr int64_t kSignalWaitMs = 10'000;  // a crash: do not hang a dying process forever

}  // namespace pecan::rt
