// DrFinder's side of `pecan fuzz --strategy drfinder`: the may-trigger relations of the previous
// run turned into what the replay runtime reads (a start clip whose sites are the functions'
// entries, the static locks and the allocation calls, and a file of ids), and the races each
// run's trace observed under happens-before.
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/happens_before_races.h"
#include "analyzer/may_trigger.h"
#include "analyzer/symbolizer.h"
#include "proto/clip.pb.h"
#include "trace_format/error.h"
#include "trace_format/trace.h"
#include "workflow/fuzz_observed_races.h"

namespace pecan::workflow {

// Writes `input_path` (replayer/replay_options.h, may_trigger_path) and returns `start` with the
// trace's modules and one site per code-address key the relations use.
proto::Clip WriteMayTriggerInput(const MayTriggerRelations& relations, const Trace& trace,
                                 proto::Clip start, uint32_t depth, const std::string& input_path);

// The races a run's trace observed, as replay's real races are written (RealRacesJson).
}  // namespace pecan::workflow
