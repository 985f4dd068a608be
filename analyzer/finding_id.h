// MakeFindingId: a finding's stable name, e.g. "race-1a2b3c4d", from its pattern, variant and
// the source locations of its events, so the same bug keeps its id across runs and traces.
#pragma once

#include <string>

#include "analyzer/finding.h"
#include "trace_format/trace.h"

namespace pecan {

// Hashes pattern, variant and, per event, the site as (module file name, offset) — or the STD
// location — so neither dense site ids nor load addresses (which vary between runs) matter.
std::string MakeFindingId(const Trace& trace, const Finding& finding);

}  // namespace pecan
