// The mutation condition of PECAN section 5.2, generalised: can the events of a candidate match
// be brought into the pattern's order by moving independent events (hybrid model: no common
// lock, no POR)? Algorithms 1 and 2 are the 2- and 3-event cases.
#pragma once

#include <string>
#include <vector>

#include "analyzer/analysis_context.h"

namespace pecan {

// Independent in the hybrid model: no common exclusive lock and no POR either way. This is
// Algorithm 1 with its printed slip corrected (the events must share NO lock).
bool Independent(const AnalysisContext& context, EventIndex a, EventIndex b);

// A slot for moving an event into another thread's sequence: the event goes immediately
// before `anchor` if anchor < event in the trace, immediately after it otherwise.
struct Move {
  EventIndex event = 0;
  EventIndex anchor = 0;
};

// Checks whether `events` (one per pattern position, `thread_symbols` giving which positions
// share a thread) can be ordered as given. The thread of the first position is the "interrupted"
// thread A; every event of another thread B must find a slot in A's program between the A events
// around it in the pattern: a place between x_prev and x where
//   not x ->POR e, not e ->POR x_prev, and A holds no lock at x that excludes e
// (Of(x) is the set A holds between x_prev and x). That is Algorithm 2's test (some x in
// (i, j] independent of k) for a later k, and its mirror for an earlier k. Slots of one thread's
// events must not cross. Events already between their neighbours in the trace stay in place and
// the others take the nearest slot; if that leaves an event no slot, every event takes its
// earliest fitting slot instead, which succeeds whenever any placement does.
// On success appends one Move per event that had to move (in pattern order).
bool CanReorder(const AnalysisContext& context, const std::vector<EventIndex>& events,
                const std::vector<uint32_t>& thread_symbols, std::vector<Move>* moves);

}  // namespace pecan
