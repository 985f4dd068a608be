// The swimlane picture of a clip (schedgen/clip_builder.h builds the clip itself): its threads as
// lanes, its runs, the steps the generator moved and the anomaly's steps with their labels.
#pragma once

#include <string>
#include <vector>

#include "cli/workflow_finding_view.h"
#include "cli/workflow_swimlane_svg.h"
#include "proto/clip.pb.h"

namespace pecan::cli {

// The swimlane picture of a clip, its anomaly steps labelled with their events.
inline SwimlanePicture PictureOfClip(const proto::Clip& clip,
                                     const std::vector<SummaryEvent>& anomaly_events) {
  SwimlanePicture picture;
  for (const auto& thread : clip.threads()) {
    if (picture.lane_names.size() <= thread.id()) picture.lane_names.resize(thread.id() + 1);
    picture.lane_names[thread.id()] =
        thread.name().empty() ? "T" + std::to_string(thread.id()) : thread.name();
  }
  picture.run_thread.assign(clip.run_thread().begin(), clip.run_thread().end());
  picture.run_length.assign(clip.run_length().begin(), clip.run_length().end());
  picture.moved_steps.assign(clip.moved_steps().begin(), clip.moved_steps().end());
  picture.anomaly_steps.assign(clip.anomaly_steps().begin(), clip.anomaly_steps().end());
  for (const auto& event : anomaly_events)
    picture.anomaly_labels.push_back(event.thread_name + " " + event.kind + " " + event.site.text);
  return picture;
}

}  // namespace pecan::cli
