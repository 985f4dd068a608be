// PatternScheduler: turns the recorded order into a schedule that runs a finding's events in the
// pattern's order, moving as few events as possible (PECAN section 6, Algorithms 3 and 4).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analyzer/por_index.h"
#include "schedgen/pattern_order.h"
#include "trace_format/trace.h"

namespace pecan {

// How it works. The recorded order is feasible, so the scheduler replays it event by event —
// always the waiting event with the smallest trace index first — and deviates only where the
// pattern forces it:
//   - a pattern event waits until the previous pattern event ran (for a race, the first access
//     waits until the second can run right after it: Algorithm 3's "move v_i before v_j");
//   - a thread whose next event waits is held back, and so is everything that depends on it by
//     POR (Algorithms 3/4's "move the dependent events behind v_j"); the schedule stops right
//     after the pattern's last event, which drops what was held back ("remove all nodes after");
//   - when every thread is stuck because a held-back thread owns a lock another thread needs,
//     that thread's critical section (its acquisition and everything depending on it) is taken
//     back out of the schedule and replayed after the other thread's acquisition — PECAN's
//     "move the outermost lock's block", done only where a lock is really contended;
//   - events recorded after the pattern's last event run only when a held-back event needs
//     them (a lock they hold, a POR edge they send); if that is not enough, any of them may run.
// Every step is linear in the events between the first and the last pattern event, plus one
// pass over the prefix before them; a taken-back critical section costs one more pass.
struct SchedulerResult {
  bool ok = false;
  std::string reason;              // why no schedule was found (when !ok)
  std::vector<EventIndex> steps;   // the schedule, ending with the pattern's last event
  uint32_t sections_moved = 0;     // critical sections replayed after a contending thread's
  bool used_later_events = false;  // events recorded after the pattern's last event were needed
};

class PatternScheduler {
 public:
  // Keeps references to both; they must outlive the scheduler.
  PatternScheduler(const Trace& trace, const PorIndex& por);

  // `extra_order` adds (event, must_run_after) constraints, e.g. PECAN's overtaken event x
  // that the second access must precede.
  SchedulerResult Build(const PatternOrder& pattern,
                        const std::vector<std::pair<EventIndex, EventIndex>>& extra_order = {}) const;

  // A bound on critical-section moves per schedule; past it the finding gets no clip.
  static constexpr uint32_t kMaxSectionMoves = 64;

 private:
  const Trace& trace_;
  const PorIndex& por_;
};

}  // namespace pecan
