#include "workflow/clip_picture.h"

namespace pecan::workflow {

std::string ShortSite(const SummarySite& site) {
  if (site.file.empty()) return site.text;
  std::string text = site.file.substr(site.file.find_last_of('/') + 1);
  if (site.line != 0) text += ":" + std::to_string(site.line);
  if (!site.function.empty()) text += " (" + site.function + ")";
  return text;
}

namespace {

// The thread that runs `step`, or -1 past the end.
int64_t ThreadOfStep(const SwimlanePicture& picture, uint64_t step) {
  uint64_t start = 0;
  for (size_t r = 0; r < picture.run_thread.size() && r < picture.run_length.size(); r++) {
    if (step < start + picture.run_length[r]) return picture.run_thread[r];
    start += picture.run_length[r];
  }
  return -1;
}

// Swaps steps `first` and `first + 1` (the last of one run and the first of the next, by another
// thread) in the run structure: [A a][B b] becomes [A a-1][B 1][A 1][B b-1], empty runs dropped
// and runs of one thread that end up side by side joined.
void SwapAdjacentSteps(SwimlanePicture& picture, uint64_t first) {
  std::vector<uint32_t> threads, lengths;
  auto push = [&](uint32_t thread, uint64_t length) {
    if (length == 0) return;
    if (!threads.empty() && threads.back() == thread) {
      lengths.back() += static_cast<uint32_t>(length);
    } else {
      threads.push_back(thread);
      lengths.push_back(static_cast<uint32_t>(length));
    }
  };
  uint64_t start = 0;
  for (size_t r = 0; r < picture.run_thread.size(); r++) {
    const uint64_t length = picture.run_length[r];
    if (start + length == first + 1 && r + 1 < picture.run_thread.size()) {
      const uint32_t a = picture.run_thread[r], b = picture.run_thread[r + 1];
      push(a, length - 1);
      push(b, 1);
      push(a, 1);
      push(b, picture.run_length[r + 1] - 1);
      start += length + picture.run_length[r + 1];
      r++;
      continue;
    }
    push(picture.run_thread[r], length);
    start += length;
  }
  picture.run_thread = std::move(threads);
  picture.run_length = std::move(lengths);
  // A moved step keeps its mark where it now runs.
  for (uint64_t& step : picture.moved_steps) {
    if (step == first) {
      step = first + 1;
    } else if (step == first + 1) {
      step = first;
    }
  }
}

}  // namespace

SwimlanePicture PictureOfClip(const proto::Clip& clip,
                              const std::vector<SummaryEvent>& anomaly_events) {
  SwimlanePicture picture;
  for (const auto& thread : clip.threads()) {
    if (picture.lane_names.size() <= thread.id()) picture.lane_names.resize(thread.id() + 1);
    picture.lane_names[thread.id()] =
        thread.name().empty() ? "T" + std::to_string(thread.id()) : thread.name();
  }
  picture.run_thread.assign(clip.run_thread().begin(), clip.run_thread().end());
  picture.run_length.assign(clip.run_length().begin(), clip.run_length().end());
  picture.run_length.resize(picture.run_thread.size(), 0);
  picture.moved_steps.assign(clip.moved_steps().begin(), clip.moved_steps().end());
  picture.anomaly_steps.assign(clip.anomaly_steps().begin(), clip.anomaly_steps().end());
  for (const auto& event : anomaly_events)
    picture.anomaly_labels.push_back(event.thread_name + " " + event.kind + " " +
                                     ShortSite(event.site));

  // The same test as the replayer's: a race, two adjacent steps, two threads.
  const auto& steps = picture.anomaly_steps;
  if (clip.finding().pattern() == "race" && steps.size() == 2 && steps[1] == steps[0] + 1) {
    const int64_t first = ThreadOfStep(picture, steps[0]);
    const int64_t second = ThreadOfStep(picture, steps[1]);
    if (first >= 0 && second >= 0 && first != second) {
      SwapAdjacentSteps(picture, steps[0]);
      if (picture.anomaly_labels.size() == 2)
        std::swap(picture.anomaly_labels[0], picture.anomaly_labels[1]);
      picture.race_reversed = true;
    }
  }
  return picture;
}

void LabelWindowRuns(SwimlanePicture& picture,
                     const std::function<std::string(uint64_t)>& site_of) {
  const size_t runs = std::min(picture.run_thread.size(), picture.run_length.size());
  picture.run_labels.assign(runs, "");
  const auto [begin, end] = AnomalyWindow(picture);
  uint64_t start = 0;
  for (size_t r = 0; r < end; r++) {
    start += picture.run_length[r];
    if (r < begin || picture.run_length[r] == 0) continue;
    uint64_t step = start - 1;
    if (picture.race_reversed && !picture.anomaly_steps.empty()) {
      const uint64_t swapped = picture.anomaly_steps[0];
      if (step == swapped)
        step = swapped + 1;
      else if (step == swapped + 1)
        step = swapped;
    }
    picture.run_labels[r] = site_of(step);
  }
}

}  // namespace pecan::workflow
