#include "analyzer/event_context.h"

#include <algorithm>

#include "trace_format/event_kind.h"

namespace pecan {

EventContexts::EventContexts(const Trace& trace, const std::vector<EventIndex>& events,
                             size_t max_frames)
    : creation_(trace.threads.size()) {
  std::vector<EventIndex> wanted = events;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<std::vector<EventIndex>> stacks(trace.threads.size());
  size_t next = 0;
  for (EventIndex i = 0; i < trace.size_events() && next < wanted.size(); ++i) {
    const ThreadId t = trace.thread[i];
    if (t >= stacks.size()) stacks.resize(t + 1);
    std::vector<EventIndex>& stack = stacks[t];
    switch (trace.kind[i]) {
      case EventKind::kFuncEntry:
        stack.push_back(i);
        break;
      case EventKind::kFuncExit:
        if (!stack.empty()) stack.pop_back();
        break;
      case EventKind::kThreadEnd:
        stack.clear();
        break;
      case EventKind::kFork:
        if (trace.addr[i] < creation_.size()) creation_[trace.addr[i]] = i;
        break;
      default:
        break;
    }
    while (next < wanted.size() && wanted[next] < i) next++;
    if (next < wanted.size() && wanted[next] == i) {
      std::vector<EventIndex>& calls = calls_[i];
      for (auto it = stack.rbegin(); it != stack.rend() && calls.size() < max_frames; ++it)
        calls.push_back(*it);
      next++;
    }
  }
  // Threads created after the last event asked about do not matter to it.
}

const std::vector<EventIndex>& EventContexts::CallsAt(EventIndex e) const {
  auto it = calls_.find(e);
  return it == calls_.end() ? none_ : it->second;
}

std::optional<EventIndex> EventContexts::CreationOf(ThreadId thread) const {
  return thread < creation_.size() ? creation_[thread] : std::nullopt;
}

}  // namespace pecan
