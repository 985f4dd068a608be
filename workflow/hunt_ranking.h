// The order in which hunt replays its predictions, and which it replays at all:
//   - sound first: races weak causal precedence leaves unordered (analyzer/wcp_races.h) need no
//     conflicting critical sections reordered, and are the likeliest to be real; then the rest,
//     whose witnesses reorder critical sections, in the report's order;
//   - one per pattern and set of sites: variants on the same sites (a `x++` races as R-W, W-R
//     and W-W with the same other line) are one replay, the cheapest witness (the one whose
//     events end earliest in the trace, then the shortest); the others are not replayed.
#pragma once

#include <cstddef>
#include <vector>

#include "analyzer/finding.h"
#include "analyzer/por_index.h"
#include "trace_format/trace.h"

namespace pecan::workflow {

struct ReplayPlan {
  std::vector<bool> sound;            // per finding
  std::vector<size_t> order;          // findings to replay, in order
  std::vector<size_t> represented_by;  // per finding: itself, or the variant replayed for it
};

ReplayPlan PlanReplays(const Trace& trace, const PorIndex& por,
                       const std::vector<Finding>& findings);

}  // namespace pecan::workflow
