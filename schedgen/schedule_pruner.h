// SchedulePruner: leaves out of a clip the events the schedule moved but the anomaly does not
// need, so they run after the clip ends instead of repairing the state before its last event.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/por_index.h"
#include "schedgen/pattern_order.h"
#include "trace_format/trace.h"

namespace pecan {

// The rule. A moved step is one that runs after an event recorded later (`MovedSteps`): the
// scheduler held it back behind the pattern, and whatever it writes may undo what the anomaly
// needs to see (Jigsaw: the dispatcher's add, which waits for the moved removal, refills the
// queue before the consumer's index check). The clip keeps:
//   - the needed events: the pattern's events and, transitively, what they depend on in the
//     schedule — earlier events of their thread, POR predecessors, and, when a kept acquisition
//     of lock L comes after another thread's critical section on L, that section's release;
//   - every event that was not moved and does not depend on a left-out one: it carries the
//     recorded data flow.
// Left out (deferred to after the clip, when the replayer lets every thread run freely): each
// moved event that is not needed, and every event depending on one (later events of its thread,
// POR successors). Needed events are closed backward, so none of them is ever left out, and what
// stays is a prefix of each thread's steps, closed under POR, with no lock held twice, and with
// the pattern's events in their places relative to each other (a race stays back to back).
class SchedulePruner {
 public:
  // Keeps references to both; they must outlive the pruner.
  SchedulePruner(const Trace& trace, const PorIndex& por);

  // `steps` must be a feasible schedule showing `pattern` (ScheduleValidator::Check passes).
  // Returns its steps without the deferred ones, in the same order; nothing when no step is
  // deferred. Cost: one pass over the schedule after the recorded prefix it starts with, a binary
  // search per pair of threads, and per round of lock repairs (a kept acquisition that needs
  // another thread's left-out release back) one pass from the first moved step.
  std::optional<std::vector<EventIndex>> Prune(const std::vector<EventIndex>& steps,
                                               const PatternOrder& pattern) const;

  // Past this many rounds of lock repairs the schedule is returned unpruned.
  static constexpr int kMaxLockRounds = 16;

 private:
  const Trace& trace_;
  const PorIndex& por_;
};

}  // namespace pecan
