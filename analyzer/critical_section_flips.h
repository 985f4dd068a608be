// Critical-section flips, the predictive counterpart of DrFinder (Cai & Cao, FSE 2015): for two
// consecutive critical sections on one lock, held by different threads, that touch the same data
// (one of them writing), a finding whose clip runs the later section first. A race between the
// sections is impossible (the lock excludes it), but their order can still be a bug: a
// check-then-act split over two sections, a use that assumes an initialization took the lock
// first, an order two threads never agreed on. hunt replays flips while it explores.
#pragma once

#include <cstdint>
#include <vector>

#include "analyzer/finding.h"
#include "analyzer/por_index.h"
#include "trace_format/trace.h"

namespace pecan {

struct FlipOptions {
  // A section's accesses kept for comparing with the next section (the first ones in it).
  uint32_t max_accesses_per_section = 4096;
  // At most this many flips; their order is the trace order of the later section.
  uint32_t max_flips = 1024;
};

// Each flip is a Finding with pattern "flip", events {b, a}: a an access in the earlier section
// (the first of its accesses that the later section conflicts with), b the later section's first
// access conflicting with a — in the order the clip must run them (b first, so the later section
// runs whole before the earlier one takes the lock). variant "R-W" etc.: the kinds of b and a.
// Locks held in read mode anywhere (rwlocks) are left out, and so is a pair the partial order
// (PorIndex) already fixes: the earlier section's acquisition ordered before b (a notify, a
// fork, ...). One flip per pair of sites of (b, a); `witnesses` counts the pairs of sections
// merged into it.
std::vector<Finding> FindCriticalSectionFlips(const Trace& trace, const PorIndex& por,
                                              const FlipOptions& options = {});

}  // namespace pecan
