// The schedule a replay actually executed: every event that went ahead under the turn, in
// order, and each thread's creation path. From it the runtime writes the run's clip (a failure
// clip when the program failed), which replays the same run step for step.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "replayer/scheduler_types.h"

namespace pecan::replay {

class ExecutionLog {
 public:
  struct Entry {
    uint64_t pc = 0;
    LogicalThread thread = kNoThread;
    EventKind kind = EventKind::kUnspecified;
  };
  struct ThreadPath {
    LogicalThread id = kNoThread;
    LogicalThread parent = kNoThread;  // kNoThread for the main thread
    uint32_t ordinal = 0;
  };

  // Entries are kept in blocks that never move, so a reader (the thread that writes the clip
  // when the program fails) can read a prefix while the turn holder appends. Past the limit
  // the log stops and says so (overflowed()).
  static constexpr size_t kBlockEntries = size_t{1} << 16;
  static constexpr size_t kMaxBlocks = 1024;  // 64 M events, 1 GiB

  ExecutionLog();
  ~ExecutionLog();
  ExecutionLog(const ExecutionLog&) = delete;
  ExecutionLog& operator=(const ExecutionLog&) = delete;

  // By the turn holder only.
  void Append(LogicalThread thread, EventKind kind, uint64_t pc);
  // When a thread's identity is fixed (by its parent, which holds the turn, or at start-up).
  void NoteThread(LogicalThread id, LogicalThread parent, uint32_t ordinal);

  // Any thread: the entries appended so far, and the threads noted so far.
  uint64_t size() const { return size_.load(std::memory_order_acquire); }
  const Entry& at(uint64_t index) const {
    return blocks_[index / kBlockEntries][index % kBlockEntries];
  }
  std::vector<ThreadPath> threads() const;
  bool overflowed() const { return overflowed_.load(std::memory_order_acquire); }

 private:
  std::unique_ptr<Entry[]> blocks_[kMaxBlocks];
  std::atomic<uint64_t> size_{0};
  std::atomic<bool> overflowed_{false};
  // Threads are few and noted rarely: a small spin lock keeps the table (no pthread mutex:
  // those are interposed in the runtime).
  mutable std::atomic_flag threads_lock_ = ATOMIC_FLAG_INIT;
  std::vector<ThreadPath> threads_;
};

}  // namespace pecan::replay
