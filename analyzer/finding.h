// A predicted (or observed) access anomaly: the pattern it matches and the trace events that
// form it, in the pattern's order. Produced by the pattern engine, consumed by reports and
// schedgen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

struct Finding {
  std::string id;         // stable: derived from pattern + variant + site tuple (see MakeFindingId)
  std::string pattern;    // "race", "atomicity", "asv", or a user pattern's name
  std::string variant;    // e.g. "W-R", "R-W-R", "W(l1) R'(l1) R'(l2) W(l2)"
  bool observed = false;  // events already occur in the pattern's order
  // The pattern's `adjacent` flag: a schedule shows the finding only with its events back to
  // back (nothing in between). True for data races.
  bool adjacent = false;
  std::vector<EventIndex> events;  // in the pattern's order
  // For 3- and 4-event patterns reached by mutation: for each pair the search moved, the event
  // x that the later event can be placed before (PECAN Algorithm 2's v_x).
  // Precisely (analyzer/reorder_feasibility.h): one entry per pattern event e that had to move
  // into the first event's thread, in pattern order. If e comes after its place in the trace,
  // the entry is the event x of that thread which e can run immediately before (x is overtaken
  // by e). If e comes before its place, the entry is e itself: the thread's events up to the
  // place (named in `reason`) can all run before e. Empty for races and observed findings.
  std::vector<EventIndex> overtaken;
  std::string reason;      // why the reordering is allowed (one sentence)
  uint32_t witnesses = 1;  // candidate matches collapsed into this finding
};

}  // namespace pecan
