// What the runtime (recorder/) calls in PECAN_MODE=replay: start-up, thread lifecycle, every
// event before it takes effect, blocking calls, and the ways a process ends. Each hook is a
// no-op until StartReplay() succeeded, and a cheap no-op after scheduling ended.
#pragma once

#include <cstdint>
#include <memory>

#include "replayer/replay_session.h"
#include "replayer/site_locator.h"
#include "trace_format/event_kind.h"

namespace pecan::replay {

// The process's replay session; set once by StartReplay (before other threads exist), never
// destroyed, so exit paths and late threads can always reach it.
extern ReplaySession* active_session;

// Reads PECAN_CLIP / PECAN_VERDICT / PECAN_REPLAY_TIMEOUT, loads the clip and starts the
// watchdog. If the clip cannot be used, writes an ERROR verdict, says why on stderr and ends
// the process with kReplayStoppedExitStatus: an unscheduled run must never pass for a replay.
// The calling thread becomes the schedule's main thread.
void StartReplay(std::unique_ptr<SiteLocator> locator, ThreadCreateFunction real_pthread_create);

inline bool ReplayActive() {
  return active_session != nullptr;
}
// True while threads run in the schedule's order (false before start and in the free run).
inline bool SchedulingActive() {
  return active_session != nullptr && active_session->scheduler().scheduling();
}

inline void OnEvent(EventKind kind, uint64_t pc, uint64_t addr, uint32_t size) {
  if (active_session != nullptr) active_session->scheduler().OnEvent({kind, pc, addr, size});
}
// Before a lock/rwlock/semaphore wait/join whose event is reported after the call returns.
inline void AcquireTurnFor(EventKind kind, uint64_t pc, uint64_t addr) {
  if (active_session != nullptr) active_session->scheduler().AcquireTurnFor({kind, pc, addr, 0});
}
// Around a blocking call that needs other threads first (barrier wait, a real condition wait
// in the free run).
inline void BeginBlocking(EventKind kind, uint64_t pc, uint64_t addr) {
  if (active_session != nullptr) active_session->scheduler().BeginBlocking({kind, pc, addr, 0});
}
inline void EndBlocking() {
  if (active_session != nullptr) active_session->scheduler().EndBlocking();
}

// Thread lifecycle: the parent reserves the child's identity before creating it; the child
// attaches with it before its first event; a thread detaches after its last event.
inline LogicalThread ReserveChild(uint32_t serial) {
  return active_session != nullptr ? active_session->scheduler().ReserveChild(serial) : kNoThread;
}
inline void ChildForked(LogicalThread child) {
  if (active_session != nullptr) active_session->scheduler().ChildForked(child);
}
inline void CancelChild(LogicalThread child) {
  if (active_session != nullptr) active_session->scheduler().CancelChild(child);
}
inline void AttachThread(LogicalThread id) {
  if (active_session != nullptr) active_session->scheduler().AttachThread(id);
}
inline void DetachThread() {
  if (active_session != nullptr) active_session->scheduler().DetachThread();
}

// The process is ending.
inline void OnProgramExit(int status) {
  if (active_session != nullptr) active_session->OnProgramExit(status);
}
inline void OnFatalSignal(int signal) {
  if (active_session != nullptr) active_session->OnFatalSignal(signal);
}

}  // namespace pecan::replay
