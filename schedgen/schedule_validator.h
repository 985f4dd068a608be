// ScheduleValidator: checks a schedule (event indices of the source trace, in the order to run
// them) against PECAN's constraint model before a clip is written, and says precisely why not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/por_index.h"
#include "schedgen/pattern_order.h"
#include "trace_format/trace.h"

namespace pecan {

struct ValidationResult {
  bool ok = true;
  std::string reason;  // one line naming the step and the rule it breaks; empty when ok
  explicit operator bool() const { return ok; }
};

// Rules (the brute-force oracle in tests/support uses the same model):
//   - each thread's steps are its first events in program order (none skipped, none twice);
//   - every POR edge is kept: an event runs only after all its POR predecessors ran;
//   - no lock is held by two threads at once (rwlock readers may share; a thread may re-acquire
//     a lock it holds; a release of a lock not held is ignored, as in LocksetTable);
//   - the pattern's events are all present, in the pattern's order, and back to back when the
//     pattern is adjacent (PatternOrder::adjacent).
class ScheduleValidator {
 public:
  // Keeps references to both; they must outlive the validator. Marks the events where POR edges
  // arrive (one bit per event), so make one validator per trace and reuse it.
  ScheduleValidator(const Trace& trace, const PorIndex& por);

  ValidationResult CheckFeasible(const std::vector<EventIndex>& schedule) const;
  ValidationResult Check(const std::vector<EventIndex>& schedule,
                         const PatternOrder& pattern) const;

 private:
  const Trace& trace_;
  const PorIndex& por_;
  std::vector<uint64_t> receives_edge_;  // bit per event: an inter-thread POR edge arrives here
};

}  // namespace pecan
