// The recorded run itself as a schedule: its first `steps` events (all of them when 0) in the
// recorded order, checked like every clip. Replaying it re-runs the program as recorded; a run
// that deadlocked or hung (pecan record --timeout) then stops where it did, and the replay says
// who waits for what.
#pragma once

#include <cstdint>

#include "analyzer/por_index.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/trace.h"

namespace pecan {

// plan.ok false (with the reason) when the trace has no events or the recorded order fails the
// schedule check (a damaged or inconsistent trace).
ClipPlan RecordedRunPlan(const Trace& trace, const PorIndex& por, uint64_t steps = 0);

}  // namespace pecan
