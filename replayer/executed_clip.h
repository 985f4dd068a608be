// The clip of the run being replayed: the schedule it actually executed (ExecutionLog), with the
// source clip's program, finding and recorder settings. Replaying it repeats the run step for
// step, so when the run failed it is the failure's reproducer (a failure clip).
#pragma once

#include <string>

#include "proto/clip.pb.h"
#include "replayer/execution_log.h"
#include "replayer/replay_schedule.h"
#include "replayer/site_locator.h"

namespace pecan::replay {

// Every executed event becomes a step (the clip lists no repeats, so each access is matched
// as a step of its own); it names no anomaly events: replaying it follows the run. `why` says
// what the run ended in ("assertion ... failed"), for the clip's generator note.
proto::Clip BuildExecutedClip(const proto::Clip& source, const ReplaySchedule& schedule,
                              const ExecutionLog& log, SiteLocator& locator,
                              const std::string& why);

}  // namespace pecan::replay
