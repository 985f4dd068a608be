// ExecutionLog: append-only blocks of executed events, and the thread table.
#include "replayer/execution_log.h"

#include "replayer/spin_guard.h"

namespace pecan::replay {

ExecutionLog::ExecutionLog() = default;
ExecutionLog::~ExecutionLog() = default;

void ExecutionLog::Append(LogicalThread thread, EventKind kind, uint64_t pc) {
  const uint64_t index = size_.load(std::memory_order_relaxed);
  const size_t block = index / kBlockEntries;
  if (block >= kMaxBlocks) {
    overflowed_.store(true, std::memory_order_release);
    return;
  }
  if (!blocks_[block]) blocks_[block].reset(new Entry[kBlockEntries]);
  blocks_[block][index % kBlockEntries] = Entry{pc, thread, kind};
  size_.store(index + 1, std::memory_order_release);
}

void ExecutionLog::NoteThread(LogicalThread id, LogicalThread parent, uint32_t ordinal) {
  SpinGuard guard(threads_lock_);
  threads_.push_back({id, parent, ordinal});
}

std::vector<ExecutionLog::ThreadPath> ExecutionLog::threads() const {
  SpinGuard guard(threads_lock_);
  return threads_;
}

}  // namespace pecan::replay
