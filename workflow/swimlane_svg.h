// Draws a clip's schedule as a swimlane SVG for the HTML summary: one lane per thread, the runs
// of the schedule left to right, moved events highlighted and the anomaly's events marked.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace pecan::workflow {

// What the picture needs from a clip (see proto/clip.proto), in plain values.
struct SwimlanePicture {
  std::vector<std::string> lane_names;  // indexed by thread id
  std::vector<uint32_t> run_thread;     // the schedule's runs, in order
  std::vector<uint32_t> run_length;
  std::vector<uint64_t> moved_steps;        // any order
  std::vector<uint64_t> anomaly_steps;      // increasing: the order they run in
  std::vector<std::string> anomaly_labels;  // tooltip per anomaly step ("T1 write a.c:12")
  bool race_reversed = false;  // a race's two accesses, run in the order the recording did not show
  // Per run, the code its last step runs ("lost_update.c:24"); empty where unknown. Only the runs
  // of the window around the anomaly (AnomalyWindow) are labelled.
  std::vector<std::string> run_labels;
};

std::string XmlEscape(const std::string& text);

// The whole clip (its last kMaxRunsShown runs when longer, earlier ones folded into a note).
std::string RenderSwimlaneSvg(const SwimlanePicture& picture);

// The runs around the anomaly, the same size whatever the clip's length: from kWindowBefore runs
// before the run of its first event to kWindowAfter after its last (at most kMaxWindowRuns,
// keeping the anomaly's end), or the last runs when the clip has no anomaly steps.
std::pair<size_t, size_t> AnomalyWindow(const SwimlanePicture& picture);

// The window around the anomaly, each run labelled with its code (run_labels).
std::string RenderSwimlaneWindowSvg(const SwimlanePicture& picture);

}  // namespace pecan::workflow
