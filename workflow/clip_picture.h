// The swimlane picture of a clip (schedgen/clip_builder.h builds the clip itself): its threads as
// lanes, its runs as the replay runs them, the steps the generator moved and the anomaly's steps.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "proto/clip.pb.h"
#include "workflow/finding_summary.h"
#include "workflow/swimlane_svg.h"

namespace pecan::workflow {

// "lost_update.c:24 (add_batch)": the file's name without its directory; the site's text when
// it has no file.
std::string ShortSite(const SummarySite& site);

// The swimlane picture of a clip, its anomaly steps labelled with their events. A data race's
// clip holds its two accesses back to back in the recorded order, and `pecan replay` runs them
// the other way round (replayer/replay_schedule.cpp, ReverseRaceOrder): the picture shows the
// order the replay runs, so the circles e1, e2 are the accesses in the order they happen.
SwimlanePicture PictureOfClip(const proto::Clip& clip,
                              const std::vector<SummaryEvent>& anomaly_events);

// Labels the runs of the window around the anomaly (AnomalyWindow) with the code of each run's
// last step: `site_of(clip_step)` names a step of the clip. The picture runs a reversed race's two
// accesses the other way round from the clip, so its steps s and s+1 are the clip's s+1 and s.
void LabelWindowRuns(SwimlanePicture& picture, const std::function<std::string(uint64_t)>& site_of);

}  // namespace pecan::workflow
