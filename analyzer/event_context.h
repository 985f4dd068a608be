// What a report says around an event, ThreadSanitizer-style: the calls open at it (from the
// trace's FUNC_ENTRY/FUNC_EXIT events, innermost first) and the event that created its thread.
// One pass over the trace answers every event asked about.
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

class EventContexts {
 public:
  // Keeps the calls open at each of `events` (at most `max_frames`, the innermost ones).
  EventContexts(const Trace& trace, const std::vector<EventIndex>& events, size_t max_frames = 16);

  // The FUNC_ENTRY events of the calls open at `e` in its thread, innermost first: each one's
  // site is in the function entered. Empty when the trace has no function events, or `e` was not
  // asked about.
  const std::vector<EventIndex>& CallsAt(EventIndex e) const;

  // The FORK event that created `thread`; none for the main thread (or an unrecorded creation).
  std::optional<EventIndex> CreationOf(ThreadId thread) const;

 private:
  std::unordered_map<EventIndex, std::vector<EventIndex>> calls_;
  std::vector<std::optional<EventIndex>> creation_;
  std::vector<EventIndex> none_;
};

}  // namespace pecan
