// The background writer: merges every thread's ring into one global order (stamped events in
// the order of their sequences, merge_turns.h; each thread's plain events between its
// neighbouring stamped events) and encodes it with pecan::TraceWriter. Its own thread never
// appears in the trace.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder/deadlock_watch.h"
#include "recorder/merge_turns.h"
#include "recorder/runtime_config.h"
#include "recorder/site_table.h"
#include "recorder/thread_ring.h"
#include "trace_format/trace.h"
#include "trace_format/trace_writer.h"

namespace pecan::rt {

class TraceCollector {
 public:
  // Creates the trace file and writes its header. Throws PecanError when it cannot.
  TraceCollector(const RuntimeConfig& config, const TraceMeta& meta);
  ~TraceCollector();
  TraceCollector(const TraceCollector&) = delete;
  TraceCollector& operator=(const TraceCollector&) = delete;

  // Starts the writer thread. False when no thread could be created (then Finish drains inline).
  bool StartThread();

  // Ends the recording: everything stamped so far and every plain event before it is written,
  // then the footer with `exit`. Any thread may call it, also from a signal handler (the writer
  // thread does the work); later callers wait for the first. Returns false when the trace could
  // not be completed within `max_wait_ms` (the writer is then still finishing).
  bool Finish(const ProgramExitInfo& exit, int64_t max_wait_ms);

  // Around fork(): the writer writes out the trace file's stdio buffer and waits, so a forked
  // child inherits an empty buffer (its exit() would otherwise write our bytes a second time).
  void PauseForFork();
  void ResumeAfterFork();

  bool finished() const { return state_.load(std::memory_order_acquire) == kDone; }
  bool OnWriterThread() const;

 private:
  struct RingCursor {
    ThreadRing* ring = nullptr;
    uint64_t head = 0;     // next slot to read
    uint64_t tail = 0;     // the ring's tail when last read (slots below it are published)
    bool blocked = false;  // head is a stamped event waiting for its turn
    OrderKey blocked_key;
    int64_t thread = -1;  // dense trace id, known from its THREAD_BEGIN on
  };

  static void* ThreadMain(void* self);
  void Run();
  void FinalDrain();
  void ReadSequenceCounts();
  // The numbers of the stamped events the rings hold but the merge has not written yet.
  std::vector<OrderKey> PresentOrderKeys() const;
  // One merge pass; returns how much it drained (0: nothing moved). Stamped events with a stamp
  // >= stamp_limit stay in their rings.
  uint64_t Pass(uint64_t stamp_limit);
  void AdoptNewRings();
  // Writes the ring's events up to its tail or to a stamped event whose turn has not come.
  // Returns the number of slots it consumed.
  uint64_t DrainRing(size_t cursor_index, uint64_t stamp_limit);
  // Appends the thread's events from `head` on: plain ones and stamped ones whose turn has come,
  // up to `stop` or the first event that must wait or goes through EmitStampedHead. Returns
  // the slot after the last one written.
  uint64_t AppendInTurnRun(RingCursor& cursor, uint64_t head, uint64_t stop, uint64_t stamp_limit);
  // FORK, JOIN and THREAD_BEGIN update the thread table as they are written.
  static bool ChangesThreadTable(EventKind kind);
  // Writes the stamped event in the two slots at `head` (the caller moves past them).
  void EmitStampedHead(RingCursor& cursor, uint64_t head);
  void ReleaseFinishedRings();
  // Every thread is blocked for good: writes the trace with who waits for what and ends the
  // process with kDeadlockExitStatus. Returns only if the program is already ending otherwise.
  void EndDeadlockedRun(std::vector<BlockedThreadState> blocked);
  // deadlocked_ as the trace has it (threads and sites of the trace), by thread.
  std::vector<BlockedThreadInfo> ResolveBlockedThreads();
  void FlushFile();
  void WriteFooter();
  ThreadId AssignChild(ThreadId parent, uint32_t child_serial);
  int64_t ThreadOfSerial(uint32_t serial) const;

  enum State : int { kRunning = 0, kFinishRequested = 1, kDone = 2 };

  RuntimeConfig config_;
  TraceWriter writer_;
  SiteTable sites_;
  std::vector<RingCursor> cursors_;
  MergeTurns turns_;
  // The last drain: how many events each object sequence numbered (object_sequences.h).
  std::vector<uint64_t> sequence_numbered_;
  std::unordered_map<uint32_t, ThreadId> thread_of_serial_;
  std::vector<uint32_t> children_of_thread_;  // indexed by ThreadId: FORKs seen so far
  uint64_t given_up_stamps_ = 0;
  uint64_t events_at_flush_ = 0;  // writer_.events_written() at the last FlushFile
  int64_t last_flush_ns_ = 0;
  int64_t last_thread_count_ns_ = 0;
  DeadlockWatch deadlock_watch_;
  int64_t last_deadlock_look_ns_ = 0;
  std::vector<BlockedThreadState> deadlocked_;  // set when the watch ended the run
  bool write_failed_ = false;

  pthread_t thread_{};
  bool thread_started_ = false;
  std::atomic<bool> pause_requested_{false};
  std::atomic<bool> paused_{false};
  std::atomic<bool> finish_claimed_{false};  // the first Finish() caller sets exit_
  std::atomic<int> state_{kRunning};
  ProgramExitInfo exit_{};
};

}  // namespace pecan::rt
