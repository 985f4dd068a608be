// The replays hunt plans for its exploring phase (hunt_explore.h), before pecan fuzz:
//   - continuations: an anomaly that hatched without a failure is replayed again with other
//     tails — a race in both of its orders, the run after the clip under other seeds and PCT —
//     since the bug it stands for may need more than the anomaly to show;
//   - critical-section flips (analyzer/critical_section_flips.h): two consecutive sections of one
//     lock that touch the same data, the later run first, for order and check-then-act bugs
//     whose every step takes the lock.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analyzer/por_index.h"
#include "schedgen/schedule_generator.h"
#include "trace_format/trace.h"
#include "workflow/finding_summary.h"
#include "workflow/hunt_explore.h"
#include "workflow/output_directory.h"

namespace pecan::workflow {

// For each of the first `max_findings` findings whose replay hatched the anomaly without a
// failure (clip_path relative to `output_path`): races get four tails (reversed and recorded
// order, each under the default seeded tail with seed 1 and under PCT with seed 1), other
// anomalies three (seeded 1, PCT 1 and 2).
std::vector<ExploreReplay> ContinuationReplays(const std::vector<SummaryFinding>& findings,
                                               size_t max_findings);

// Flips of the trace's critical sections (at most `max_flips`), each with a clip written to
// flips/ID.clip in `output`; flips without a feasible clip are left out. `skipped` (when set)
// gets how many had none.
std::vector<ExploreReplay> FlipReplays(const Trace& trace, const PorIndex& por,
                                       const ScheduleGenerator& generator,
                                       const std::string& trace_hash, OutputDirectory& output,
                                       size_t max_flips, size_t* skipped = nullptr);

}  // namespace pecan::workflow
