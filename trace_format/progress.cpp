// ProgressReporter: redraws "label: NN%" with a carriage return, only on a terminal.
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
  if (!enabled_) return;
  int percent =
      total_ == 0 ? 100 : static_cast<int>(std::min<uint64_t>(done, total_) * 100 / total_);
  if (percent == shown_percent_) return;
  shown_percent_ = percent;
  std::fprintf(stderr, "\r%s: %3d%%", label_.c_str(), percent);
  std::fflush(stderr);
}

void ProgressReporter::Finish() {
  if (!enabled_) return;
  if (shown_percent_ >= 0) {
    std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + 6, "");
    std::fflush(stderr);
  }
  enabled_ = false;
}

}  // namespace pecan
