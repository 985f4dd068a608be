// Which steps of a schedule repeat an earlier step: the same thread's access to the same
// address, size and kind at the same site, with no other event of that thread in between.
#pragma once

#include <cstdint>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

// For each step: 0, or how many steps back lies the first access it repeats (see
// proto/clip.proto, step_repeat_of). `steps` holds a prefix of each thread's events in program
// order, as every schedule does. Linear in the number of steps.
std::vector<uint64_t> StepRepeatDistances(const Trace& trace, const std::vector<EventIndex>& steps);

}  // namespace pecan
