// The report of a run stopped as stuck (deadlock or hang): each live thread and what it waits
// for, with code and objects as module + offset, so the CLI can name them (file:line, the lock's
// variable) after the process is gone.
#pragma once

#include <vector>

#include "proto/report.pb.h"
#include "replayer/scheduler_types.h"
#include "replayer/site_locator.h"

namespace pecan::replay {

// `address` as a place: module + offset when a loaded module holds it.
void SetPlace(uint64_t address, SiteLocator& locator, proto::Place& place);

// Also sets the verdict's failure thread and site: the first thread that waits for something.
void AddStuckThreads(const std::vector<StuckThread>& threads, SiteLocator& locator,
                     proto::Verdict& verdict);

}  // namespace pecan::replay
