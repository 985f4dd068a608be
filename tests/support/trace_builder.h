// TraceBuilder: builds small in-memory traces by hand for tests, one call per event, with
// variables, locks and condition variables named by strings; every event gets its own site.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "trace_format/event_kind.h"
#include "trace_format/trace.h"

namespace pecan::test {

// Address layout of the names a builder hands out (all 8-byte slots, never overlapping).
inline constexpr uint64_t kVariableBase = 0x1000;
inline constexpr uint64_t kLockBase = 0x2000;
inline constexpr uint64_t kConditionBase = 0x3000;
inline constexpr uint32_t kVariableSize = 8;

class TraceBuilder {
 public:
  // Each call appends one event by thread `t` and returns its global index. Threads come into
  // the thread table the first time they appear; Fork records the child's parent and ordinal.
  EventIndex Read(ThreadId t, const std::string& variable);
  EventIndex Write(ThreadId t, const std::string& variable);
  EventIndex AtomicLoad(ThreadId t, const std::string& variable, MemoryOrder order);
  EventIndex AtomicStore(ThreadId t, const std::string& variable, MemoryOrder order);
  EventIndex AtomicRmw(ThreadId t, const std::string& variable, MemoryOrder order);
  EventIndex Lock(ThreadId t, const std::string& lock);
  EventIndex Unlock(ThreadId t, const std::string& lock);
  EventIndex ReadLock(ThreadId t, const std::string& lock);
  EventIndex ReadUnlock(ThreadId t, const std::string& lock);
  EventIndex Fork(ThreadId t, ThreadId child);
  EventIndex Join(ThreadId t, ThreadId child);
  EventIndex Begin(ThreadId t);
  EventIndex End(ThreadId t);
  // The WAIT event alone; a recorded condition wait is Unlock(mutex), Wait(cv), Lock(mutex).
  EventIndex Wait(ThreadId t, const std::string& condition, bool timed_out = false);
  EventIndex Notify(ThreadId t, const std::string& condition);
  EventIndex NotifyAll(ThreadId t, const std::string& condition);
  // Any other event, with the raw fields.
  EventIndex Raw(ThreadId t, EventKind kind, uint64_t address, uint32_t size = 0,
                 uint8_t flags = 0);

  uint64_t VariableAddress(const std::string& name);
  uint64_t LockAddress(const std::string& name);
  uint64_t ConditionAddress(const std::string& name);

  size_t size() const { return trace_.size_events(); }
  const Trace& trace() const { return trace_; }
  Trace Build() const { return trace_; }

 private:
  uint64_t AddressOf(std::map<std::string, uint64_t>& table, uint64_t base, const std::string& name,
                     uint64_t size);
  void EnsureThread(ThreadId t);

  Trace trace_;
  std::map<std::string, uint64_t> variables_;
  std::map<std::string, uint64_t> locks_;
  std::map<std::string, uint64_t> conditions_;
  std::map<ThreadId, uint32_t> children_forked_;
};

}  // namespace pecan::test
