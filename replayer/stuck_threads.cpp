// AddStuckThreads: the scheduler's view of each thread, as proto with places in modules.
#include "replayer/stuck_threads.h"

#include <string>

namespace pecan::replay {
namespace {

std::string_view WaitsFor(WaitTarget::Object object) {
  switch (object) {
    case WaitTarget::Object::kLock:
      return "lock";
    case WaitTarget::Object::kReadLock:
      return "read lock";
    case WaitTarget::Object::kCondition:
      return "condition";
    case WaitTarget::Object::kNone:
      break;
  }
  return "";
}

}  // namespace

void SetPlace(uint64_t address, SiteLocator& locator, proto::Place& place) {
  place.set_address(address);
  SiteLocator::PcModule module;
  if (address == 0 || !locator.ModuleOf(address, module)) return;
  place.set_module(module.path);
  place.set_build_id(module.build_id);
  place.set_offset(address - module.load_address);
}

void AddStuckThreads(const std::vector<StuckThread>& threads, SiteLocator& locator,
                     proto::Verdict& verdict) {
  for (const StuckThread& thread : threads) {
    proto::StuckThread& out = *verdict.add_stuck_threads();
    out.set_name(thread.name);
    out.set_activity(std::string(ThreadActivityName(thread.activity)));
    out.set_recent_repeats(thread.recent_repeats);
    out.set_recent_events(thread.recent_events);
    if (thread.recent_events > 0) {
      out.set_spin_event(std::string(EventKindName(thread.latest.kind)));
      SetPlace(thread.latest.pc, locator, *out.mutable_spin_at());
    }
    if (!thread.at_event && !thread.in_call) continue;
    out.set_event(std::string(EventKindName(thread.event.kind)));
    SetPlace(thread.event.pc, locator, *out.mutable_at());
    // The lock, condition, semaphore or barrier (a JOIN's target is a thread, not an object).
    if (thread.event.kind != EventKind::kJoin)
      SetPlace(thread.event.addr, locator, *out.mutable_object());
    if (thread.target.object == WaitTarget::Object::kNone) continue;
    out.set_waits_for(std::string(WaitsFor(thread.target.object)));
    out.set_readers(thread.target.readers);
    if (thread.target.holder == kNoThread) continue;
    out.set_held_by(thread.holder_name);
    SetPlace(thread.target.holder_pc, locator, *out.mutable_held_at());
  }
  // The first thread that waits for another (else the first at or in an event).
  const proto::StuckThread* first = nullptr;
  for (const proto::StuckThread& thread : verdict.stuck_threads()) {
    if (!thread.waits_for().empty()) {
      first = &thread;
      break;
    }
    if (first == nullptr && !thread.event().empty()) first = &thread;
  }
  if (first == nullptr) return;
  verdict.set_failure_thread(first->name());
  *verdict.mutable_failure_site() = first->at();
}

}  // namespace pecan::replay
