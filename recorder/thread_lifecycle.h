// How a thread joins and leaves the recording: its ring, stack range and serial, its
// THREAD_BEGIN, and its FREE(stack) + THREAD_END when it exits by any path.
#pragma once

#include <cstdint>

namespace pecan::rt {

// Creation serials in the order the runtime saw threads created (0 = first recorded thread).
uint32_t NextThreadSerial();
void ResetThreadSerials();  // fork child: the calling thread becomes serial 0 again

// Prepares the calling thread (ring, stack range, exit hook). Its gates stay closed until
// BeginRecordingCurrentThread. False if the ring could not be allocated.
bool AttachCurrentThread(uint32_t serial, uint64_t entry_pc);

// Emits THREAD_BEGIN (the thread's first event) and opens the thread's gates.
void BeginRecordingCurrentThread();

// Heal mode: opens the calling thread's accesses and events to the section monitors without
// recording anything (serial, stack range, exit hook; no ring).
void BeginMonitoringCurrentThread(uint64_t entry_pc);

// Emits FREE of the thread's stack (glibc reuses stacks: a later thread's identical addresses
// are new locations) and THREAD_END, then stops recording the thread and hands the ring back.
// Runs from a thread-specific-data destructor, i.e. after C++ thread_local destructors.
void EndCurrentThread();

// Opens or closes the plain-access gate for ignore annotations (nested).
void IgnoreAccessesBegin();
void IgnoreAccessesEnd();

// Registers the thread-exit hook (a pthread key). Called once at start.
void InitThreadLifecycle();

}  // namespace pecan::rt
