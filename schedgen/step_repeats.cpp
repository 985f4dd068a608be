// StepRepeatDistances: one EpochAccessTable per thread, so each plain access costs one probe
// sequence and memory follows the largest epoch, not the schedule.
#include "schedgen/step_repeats.h"

#include "trace_format/epoch_access_table.h"

namespace pecan {

std::vector<uint64_t> StepRepeatDistances(const Trace& trace,
                                          const std::vector<EventIndex>& steps) {
  std::vector<uint64_t> distance(steps.size(), 0);
  std::vector<uint64_t> epoch(trace.threads.size(), 1);
  std::vector<EpochAccessTable> tables(trace.threads.size());
  for (uint64_t s = 0; s < steps.size(); ++s) {
    const EventIndex e = steps[s];
    const ThreadId t = trace.thread[e];
    if (t >= epoch.size()) {
      epoch.resize(t + 1, 1);
      tables.resize(t + 1);
    }
    if (!IsPlainAccess(trace.kind[e])) {
      ++epoch[t];  // every other event of the thread ends its epoch, as in the recorder
      continue;
    }
    const EpochAccess access{trace.addr[e], trace.site[e], trace.size[e], trace.kind[e]};
    distance[s] = s - tables[t].FindOrAdd(access, epoch[t], s);
  }
  return distance;
}

}  // namespace pecan
