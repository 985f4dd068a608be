#include "workflow/progress_warnings.h"

namespace pecan::workflow {

ProgressWithWarnings::ProgressWithWarnings(std::string label, uint64_t total)
    : label_(std::move(label)), total_(total) {
  bar_.emplace(label_, total_);
  // Off a terminal the bar draws nothing, so warnings can go where they always go.
  if (bar_->enabled()) {
    previous_ = SetWarningSink([this](std::string_view message) { Warn(message); });
    installed_ = true;
  }
}

ProgressWithWarnings::~ProgressWithWarnings() {
  if (installed_) SetWarningSink(std::move(previous_));
  std::lock_guard<std::mutex> guard(mutex_);
  bar_.reset();  // clears the line
}

void ProgressWithWarnings::Update(uint64_t done) {
  std::lock_guard<std::mutex> guard(mutex_);
  done_ = done;
  bar_->Update(done, note_);
}

void ProgressWithWarnings::Update(uint64_t done, const std::string& note) {
  std::lock_guard<std::mutex> guard(mutex_);
  done_ = done;
  note_ = note;
  bar_->Update(done, note);
}

void ProgressWithWarnings::Warn(std::string_view message) {
  std::lock_guard<std::mutex> guard(mutex_);
  bar_.reset();  // ProgressReporter clears its line when it goes
  if (previous_) {
    previous_(message);
  } else {
    std::cerr << "pecan: warning: " << message << std::endl;
  }
  bar_.emplace(label_, total_);
  bar_->Update(done_, note_);
}

}  // namespace pecan::workflow
