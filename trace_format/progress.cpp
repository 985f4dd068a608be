// ProgressReporter: redraws "label [####....]  NN% (done/total)" with a carriage return, only
// on a terminal.
#include "trace_format/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace pecan {

ProgressReporter::ProgressReporter(std::string label, uint64_t total)
    : label_(std::move(label)), total_(total), enabled_(isatty(STDERR_FILENO) == 1) {}

ProgressReporter::~ProgressReporter() {
  Finish();
}

void ProgressReporter::Update(uint64_t done) {
  Update(done, shown_note_);
}

void ProgressReporter::Update(uint64_t done, const std::string& note) {
  if (!enabled_) return;
  done = std::min(done, total_);
  int percent = total_ == 0 ? 100 : static_cast<int>(done * 100 / total_);
  // Redraw when the percentage moves; with small totals, on every step (the count changes).
  if (percent == shown_percent_ && (done == shown_done_ || total_ > 100) && note == shown_note_)
    return;
  shown_percent_ = percent;
  shown_done_ = done;
  shown_note_ = note;
  constexpr int kBarWidth = 30;
  const int filled = percent * kBarWidth / 100;
  char bar[kBarWidth + 1];
  for (int i = 0; i < kBarWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kBarWidth] = '\0';
  const int length =
      std::fprintf(stderr, "\r%s [%s] %3d%% (%llu/%llu)%s%s", label_.c_str(), bar, percent,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                   note.empty() ? "" : ", ", note.c_str());
  shown_width_ = std::max(shown_width_, length - 1);
  std::fflush(stderr);
}

void ProgressReporter::Finish() {
  if (!enabled_) return;
  if (shown_percent_ >= 0) {
    std::fprintf(stderr, "\r%*s\r", shown_width_, "");
    std::fflush(stderr);
  }
  enabled_ = false;
}

}  // namespace pecan
