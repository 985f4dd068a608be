#include "workflow/swimlane_svg.h"

namespace pecan::workflow {

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

constexpr double kLabelWidth = 70;
constexpr double kLaneHeight = 26;
constexpr double kTopMargin = 18;
constexpr double kRunGap = 3;
// Long clips keep their tail (where the anomaly forms): earlier runs fold into one box.
constexpr size_t kMaxRunsShown = 240;
// The window around the anomaly: runs before its first event's run, after its last event's, and
// at most in all; each run wide enough for its label.
constexpr size_t kWindowBefore = 5;
constexpr size_t kWindowAfter = 2;
constexpr size_t kMaxWindowRuns = 10;
constexpr double kLabelledRunWidth = 128;
constexpr double kLabelledLaneHeight = 40;

// A run of n steps gets a width that grows with n but slowly, so one long run does not push
// the interesting switches off the picture.
double RunWidth(uint64_t steps) {
  return 8 + 9 * std::log2(1.0 + static_cast<double>(steps));
}

}  // namespace

namespace {

// Draws runs [first_run, end_run) of the picture; with `labelled`, each run wide enough for its
// label, which is written above it.
std::string RenderRuns(const SwimlanePicture& picture, size_t first_run, size_t end_run,
                       bool labelled) {
  const size_t runs = std::min(picture.run_thread.size(), picture.run_length.size());
  end_run = std::min(end_run, runs);
  first_run = std::min(first_run, end_run);
  std::vector<uint64_t> run_start(runs + 1, 0);
  for (size_t r = 0; r < runs; r++) run_start[r + 1] = run_start[r] + picture.run_length[r];
  const double lane_height = labelled ? kLabelledLaneHeight : kLaneHeight;
  auto run_width_of = [&](size_t r) {
    const double width = RunWidth(picture.run_length[r]);
    return labelled ? std::max(width, kLabelledRunWidth) : width;
  };

  std::vector<uint64_t> moved = picture.moved_steps;
  std::sort(moved.begin(), moved.end());
  auto is_moved = [&](uint64_t step) {
    return std::binary_search(moved.begin(), moved.end(), step);
  };

  uint32_t lanes = static_cast<uint32_t>(picture.lane_names.size());
  for (size_t r = 0; r < runs; r++) lanes = std::max(lanes, picture.run_thread[r] + 1);
  auto lane_y = [&](uint32_t lane) { return kTopMargin + lane * lane_height; };

  // x position of each shown run.
  std::vector<double> run_x(runs + 1, 0);
  double x = kLabelWidth + 4;
  const double folded_width = first_run > 0 ? 60 : 0;
  x += folded_width;
  for (size_t r = first_run; r < end_run; r++) {
    run_x[r] = x;
    x += run_width_of(r) + kRunGap;
  }
  const double later_width = end_run < runs ? 90 : 0;
  const double width = x + 10 + later_width;
  const double height = kTopMargin + lanes * lane_height + 8;

  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"swimlane\" width=\""
      << std::lround(width) << "\" height=\"" << std::lround(height) << "\" viewBox=\"0 0 "
      << std::lround(width) << ' ' << std::lround(height) << "\" role=\"img\">\n";
  svg << "<title>schedule: " << run_start[runs] << " steps in " << runs << " runs"
      << (first_run > 0 || end_run < runs
              ? "; shown: steps " + std::to_string(run_start[first_run]) + ".." +
                    std::to_string(run_start[end_run] == 0 ? 0 : run_start[end_run] - 1)
              : "")
      << (picture.race_reversed ? "; the race's two accesses in the order replay runs them, the "
                                  "reverse of the recording"
                                : "")
      << "</title>\n";
  for (uint32_t lane = 0; lane < lanes; lane++) {
    std::string name =
        lane < picture.lane_names.size() ? picture.lane_names[lane] : "T" + std::to_string(lane);
    double y = lane_y(lane);
    svg << "<line class=\"lane\" x1=\"" << kLabelWidth << "\" y1=\"" << y + lane_height / 2
        << "\" x2=\"" << width - 6 << "\" y2=\"" << y + lane_height / 2 << "\"/>\n";
    svg << "<text class=\"lane-name\" x=\"4\" y=\"" << y + lane_height / 2 + 4 << "\">"
        << XmlEscape(name) << "</text>\n";
  }
  if (first_run > 0) {
    svg << "<text class=\"folded\" x=\"" << kLabelWidth + 4 << "\" y=\"" << kTopMargin - 5 << "\">"
        << run_start[first_run] << " earlier steps</text>\n";
  }
  if (end_run < runs) {
    svg << "<text class=\"folded\" x=\"" << width - later_width << "\" y=\"" << kTopMargin - 5
        << "\">" << run_start[runs] - run_start[end_run] << " later steps</text>\n";
  }

  double previous_end_x = -1, previous_y = 0;
  for (size_t r = first_run; r < end_run; r++) {
    const uint32_t lane = picture.run_thread[r];
    const double y = lane_y(lane) + (labelled ? 16 : 4), h = kLaneHeight - 8;
    const double run_width = run_width_of(r);
    if (labelled && r < picture.run_labels.size() && !picture.run_labels[r].empty()) {
      // Cut to the box's width (about 6 px a character); the whole label is the tooltip.
      const std::string& label = picture.run_labels[r];
      const size_t fits = static_cast<size_t>(run_width / 6);
      const std::string shown =
          label.size() <= fits ? label : "\u2026" + label.substr(label.size() - fits + 1);
      svg << "<text class=\"run-label\" x=\"" << run_x[r] << "\" y=\"" << y - 3 << "\"><title>"
          << XmlEscape(label) << "</title>" << XmlEscape(shown) << "</text>\n";
    }
    const uint64_t length = picture.run_length[r];
    if (previous_end_x >= 0) {  // the hand-off from the previous run's thread to this one
      svg << "<line class=\"handoff\" x1=\"" << previous_end_x << "\" y1=\"" << previous_y + h / 2
          << "\" x2=\"" << run_x[r] << "\" y2=\"" << y + h / 2 << "\"/>\n";
    }
    // Segments of consecutive steps that are all moved or all in place.
    uint64_t segment_begin = 0;
    while (segment_begin < length) {
      bool moved_segment = is_moved(run_start[r] + segment_begin);
      uint64_t segment_end = segment_begin + 1;
      while (segment_end < length && is_moved(run_start[r] + segment_end) == moved_segment)
        segment_end++;
      double sx =
          run_x[r] + run_width * static_cast<double>(segment_begin) / static_cast<double>(length);
      double sw = run_width * static_cast<double>(segment_end - segment_begin) /
                  static_cast<double>(length);
      svg << "<rect class=\"" << (moved_segment ? "run moved" : "run") << "\" x=\"" << sx
          << "\" y=\"" << y << "\" width=\"" << std::max(sw, 1.0) << "\" height=\"" << h
          << "\"><title>"
          << XmlEscape(lane < picture.lane_names.size() ? picture.lane_names[lane]
                                                        : "T" + std::to_string(lane))
          << ": steps " << run_start[r] + segment_begin << ".." << run_start[r] + segment_end - 1
          << (moved_segment ? " (moved by the generator)" : "") << "</title></rect>\n";
      segment_begin = segment_end;
    }
    previous_end_x = run_x[r] + run_width;
    previous_y = y;
  }

  // The anomaly's events, numbered in the order they run.
  for (size_t a = 0; a < picture.anomaly_steps.size(); a++) {
    const uint64_t step = picture.anomaly_steps[a];
    auto it =
        std::upper_bound(run_start.begin(), run_start.begin() + static_cast<long>(runs) + 1, step);
    if (it == run_start.begin()) continue;
    size_t r = static_cast<size_t>(it - run_start.begin()) - 1;
    if (r >= end_run || r < first_run) continue;
    const double cx = run_x[r] + run_width_of(r) *
                                     (static_cast<double>(step - run_start[r]) + 0.5) /
                                     static_cast<double>(picture.run_length[r]);
    const double cy = lane_y(picture.run_thread[r]) + (labelled ? 16 : 4) + (kLaneHeight - 8) / 2;
    std::string label = a < picture.anomaly_labels.size() ? picture.anomaly_labels[a] : "";
    svg << "<g class=\"anomaly\"><title>e" << a + 1 << ": step " << step
        << (label.empty() ? "" : " — ") << XmlEscape(label) << "</title><circle cx=\"" << cx
        << "\" cy=\"" << cy << "\" r=\"6\"/><text x=\"" << cx << "\" y=\"" << cy - 8 << "\">e"
        << a + 1 << "</text></g>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace

std::string RenderSwimlaneSvg(const SwimlanePicture& picture) {
  const size_t runs = std::min(picture.run_thread.size(), picture.run_length.size());
  return RenderRuns(picture, runs > kMaxRunsShown ? runs - kMaxRunsShown : 0, runs, false);
}

std::pair<size_t, size_t> AnomalyWindow(const SwimlanePicture& picture) {
  const size_t runs = std::min(picture.run_thread.size(), picture.run_length.size());
  size_t first = runs, last = 0;
  uint64_t start = 0;
  for (size_t r = 0; r < runs; r++) {
    const uint64_t end = start + picture.run_length[r];
    for (uint64_t step : picture.anomaly_steps) {
      if (step >= start && step < end) {
        first = std::min(first, r);
        last = std::max(last, r);
      }
    }
    start = end;
  }
  if (first == runs) return {runs > kMaxWindowRuns ? runs - kMaxWindowRuns : 0, runs};
  const size_t end = std::min(runs, last + 1 + kWindowAfter);
  size_t begin = first > kWindowBefore ? first - kWindowBefore : 0;
  if (end - begin > kMaxWindowRuns) begin = end - kMaxWindowRuns;
  return {begin, end};
}

std::string RenderSwimlaneWindowSvg(const SwimlanePicture& picture) {
  const auto [begin, end] = AnomalyWindow(picture);
  return RenderRuns(picture, begin, end, true);
}

}  // namespace pecan::workflow
