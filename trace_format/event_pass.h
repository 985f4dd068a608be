// ForEachEvent: one pass over a trace file's events, chunk by chunk, with a progress line — the
// loop of every reader that follows a .pecan file's events without holding them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "trace_format/progress.h"
#include "trace_format/trace_reader.h"

namespace pecan {

// Starts `progress`, a pass's progress line labelled `label`, counting up to `total` (0: the
// file's footer count), when `show_progress` and the total is known.
inline void StartPassProgress(std::optional<ProgressReporter>& progress, TraceReader& reader,
                              bool show_progress, const std::string& label, uint64_t total) {
  if (total == 0) total = reader.footer_event_count().value_or(0);
  if (show_progress && total > 0) {
    progress.emplace(label, total);
    progress->KeepAlive(kKeepAliveLogSeconds);
  }
}

// Calls fn(first, columns, count) for each batch of a few thousand events of `reader`, up to event
// `last` (included), in order: `count` events, the first numbered `first`; reads no further.
// With `show_progress`, a progress line labelled `label` counts up to `total` (0: the file's
// footer count; none if unknown). Returns the number of events read: `last` + 1, or fewer where
// the trace ends before it.
template <typename F>
uint64_t ForEachBatchUpTo(TraceReader& reader, bool show_progress, const std::string& label,
                          uint64_t total, EventIndex last, F&& fn) {
  std::optional<ProgressReporter> progress;
  StartPassProgress(progress, reader, show_progress, label, total);
  // A few thousand events at a time: the batch stays in the cache while fn runs over it.
  constexpr uint64_t kEventsAtATime = 4096;
  EventBatch batch;
  uint64_t read = 0;
  while (read <= last && reader.NextEvents(batch, kEventsAtATime)) {
    const EventColumns columns = batch.columns();  // fn may write anywhere: see EventColumns
    const uint64_t first = batch.first_event;
    // The batch's events up to `last` (last - first + 1 overflows where `last` is the greatest).
    const size_t count = batch.count() == 0 || batch.count() - 1 <= last - first
                             ? batch.count()
                             : static_cast<size_t>(last - first + 1);
    fn(first, columns, count);
    read = first + count;
    if (progress) progress->Update(read);
  }
  return read;
}

// Calls fn(index, event) for each event of `reader` up to event `last` (included), in order, and
// reads no further; the progress line and the count returned as ForEachBatchUpTo's.
template <typename F>
uint64_t ForEachEventUpTo(TraceReader& reader, bool show_progress, const std::string& label,
                          uint64_t total, EventIndex last, F&& fn) {
  return ForEachBatchUpTo(reader, show_progress, label, total, last,
                          [&](uint64_t first, const EventColumns& columns, size_t count) {
                            for (size_t j = 0; j < count; ++j) fn(first + j, columns.event(j));
                          });
}

// Calls fn(index, event) for each event of `reader`, in order (ForEachEventUpTo the end).
template <typename F>
uint64_t ForEachEvent(TraceReader& reader, bool show_progress, const std::string& label,
                      uint64_t total, F&& fn) {
  return ForEachEventUpTo(reader, show_progress, label, total, ~EventIndex{0}, fn);
}

}  // namespace pecan
