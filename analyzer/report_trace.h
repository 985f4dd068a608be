// The report trace: the few events of a .pecan file that a report on given findings reads (the
// findings' events and their context), so findings of an engine that never holds the whole trace
// can still be reported exactly as from the whole trace.
#pragma once

#include <string>
#include <vector>

#include "analyzer/finding.h"
#include "trace_format/trace.h"

namespace pecan {

// One pass over the .pecan file, chunk by chunk, after reading the chunks that hold `events` by
// the chunk index (their addresses name the heap blocks to keep): up to the last of `events` where
// the file has a footer (no pass for no events), else to its end. Of the events it reads, keeps
// `events` (recorded numbers, any order, duplicates allowed; numbers past the end are ignored)
// plus what a report on them reads: for each such event e of thread t, the FUNC_ENTRY events of
// t's calls open at e and their FUNC_EXITs (EventContexts::CallsAt); t's LOCK events of the locks
// held at e, the recursive re-acquisitions still open then included, and every later acquisition
// and release of those holds (LocksetTable); the ALLOC (and the FREE ending it) of the heap block
// e's address lies in at e's moment (HeapBlocks::At); every thread lifecycle event (THREAD_BEGIN/
// END, FORK, JOIN: EventContexts::CreationOf). The result has Trace::origin (each event's recorded
// number), recorded_events (the footer's count, else the events read) and the file's meta, thread,
// site, module and name tables, so reports, Symbolizer, LocksetTable and EventContexts answer for
// those events exactly as on the whole trace. Memory: per thread its open calls and held locks
// while reading, per address of `events` the latest block covering it, and the events kept.
// Throws PecanError for a damaged file; warns of a truncated one only with `log_warnings`; shows
// its progress with `show_progress`.
Trace ReadReportTrace(const std::string& path, const std::vector<EventIndex>& events,
                      bool log_warnings = false, bool show_progress = false);

// Findings from recorded numbers to positions in `trace` (by Trace::origin, binary search; a
// trace without origin holds the recorded numbering). Throws PecanError, leaving `findings` as
// they were, if an event is not in it.
void ToTraceNumbers(const Trace& trace, std::vector<Finding>* findings);

}  // namespace pecan
