// Hand-built traces for tests: names become addresses, each event gets a site of its own.
#include "tests/support/trace_builder.h"

namespace pecan::test {

void TraceBuilder::EnsureThread(ThreadId t) {
  while (trace_.threads.size() <= t) {
    ThreadInfo info;
    info.name = "T" + std::to_string(trace_.threads.size());
    trace_.threads.push_back(info);
  }
}

uint64_t TraceBuilder::AddressOf(std::map<std::string, uint64_t>& table, uint64_t base,
                                 const std::string& name, uint64_t size) {
  auto it = table.find(name);
  if (it != table.end()) return it->second;
  uint64_t address = base + kVariableSize * table.size();
  table.emplace(name, address);
  trace_.names.push_back(AddressName{address, size, name});
  return address;
}

uint64_t TraceBuilder::VariableAddress(const std::string& name) {
  return AddressOf(variables_, kVariableBase, name, kVariableSize);
}
uint64_t TraceBuilder::LockAddress(const std::string& name) {
  return AddressOf(locks_, kLockBase, name, 1);
}
uint64_t TraceBuilder::ConditionAddress(const std::string& name) {
  return AddressOf(conditions_, kConditionBase, name, 1);
}

EventIndex TraceBuilder::Raw(ThreadId t, EventKind kind, uint64_t address, uint32_t size,
                             uint8_t flags) {
  EnsureThread(t);
  EventIndex index = trace_.size_events();
  SiteId site = static_cast<SiteId>(trace_.sites.size());
  // Module-less sites, like STD imports: the offset is the "location" of the event.
  trace_.sites.push_back(SiteInfo{kNoModule, index});
  trace_.push_back(Event{t, kind, flags, size, address, site});
  return index;
}

EventIndex TraceBuilder::Read(ThreadId t, const std::string& variable) {
  return Raw(t, EventKind::kRead, VariableAddress(variable), kVariableSize);
}
EventIndex TraceBuilder::Write(ThreadId t, const std::string& variable) {
  return Raw(t, EventKind::kWrite, VariableAddress(variable), kVariableSize);
}
EventIndex TraceBuilder::AtomicLoad(ThreadId t, const std::string& variable, MemoryOrder order) {
  return Raw(t, EventKind::kAtomicLoad, VariableAddress(variable), kVariableSize,
             static_cast<uint8_t>(order));
}
EventIndex TraceBuilder::AtomicStore(ThreadId t, const std::string& variable, MemoryOrder order) {
  return Raw(t, EventKind::kAtomicStore, VariableAddress(variable), kVariableSize,
             static_cast<uint8_t>(order));
}
EventIndex TraceBuilder::AtomicRmw(ThreadId t, const std::string& variable, MemoryOrder order) {
  return Raw(t, EventKind::kAtomicRmw, VariableAddress(variable), kVariableSize,
             static_cast<uint8_t>(order));
}
EventIndex TraceBuilder::Lock(ThreadId t, const std::string& lock) {
  return Raw(t, EventKind::kLock, LockAddress(lock));
}
EventIndex TraceBuilder::Unlock(ThreadId t, const std::string& lock) {
  return Raw(t, EventKind::kUnlock, LockAddress(lock));
}
EventIndex TraceBuilder::ReadLock(ThreadId t, const std::string& lock) {
  return Raw(t, EventKind::kReadLock, LockAddress(lock));
}
EventIndex TraceBuilder::ReadUnlock(ThreadId t, const std::string& lock) {
  return Raw(t, EventKind::kReadUnlock, LockAddress(lock));
}

EventIndex TraceBuilder::Fork(ThreadId t, ThreadId child) {
  EnsureThread(t);
  EnsureThread(child);
  trace_.threads[child].parent = t;
  trace_.threads[child].ordinal = children_forked_[t]++;
  return Raw(t, EventKind::kFork, child);
}
EventIndex TraceBuilder::Join(ThreadId t, ThreadId child) {
  EnsureThread(child);
  return Raw(t, EventKind::kJoin, child);
}
EventIndex TraceBuilder::Begin(ThreadId t) {
  return Raw(t, EventKind::kThreadBegin, 0);
}
EventIndex TraceBuilder::End(ThreadId t) {
  return Raw(t, EventKind::kThreadEnd, 0);
}

EventIndex TraceBuilder::Wait(ThreadId t, const std::string& condition, bool timed_out) {
  return Raw(t, EventKind::kWait, ConditionAddress(condition), 0,
             timed_out ? kWaitTimedOutFlag : uint8_t{0});
}
EventIndex TraceBuilder::Notify(ThreadId t, const std::string& condition) {
  return Raw(t, EventKind::kNotify, ConditionAddress(condition));
}
EventIndex TraceBuilder::NotifyAll(ThreadId t, const std::string& condition) {
  return Raw(t, EventKind::kNotifyAll, ConditionAddress(condition));
}

}  // namespace pecan::test
