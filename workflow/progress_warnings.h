// A progress bar that warnings do not break: while the bar is on the terminal, each warning
// (a truncated trace, say) clears it, prints on a line of its own, and the bar is drawn again.
#pragma once

#include <cstdint>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "trace_format/log.h"
#include "trace_format/progress.h"

namespace pecan::cli {

class ProgressWithWarnings {
 public:
  ProgressWithWarnings(std::string label, uint64_t total)
      : label_(std::move(label)), total_(total) {
    bar_.emplace(label_, total_);
    // Off a terminal the bar draws nothing, so warnings can go where they always go.
    if (bar_->enabled()) {
      previous_ = SetWarningSink([this](std::string_view message) { Warn(message); });
      installed_ = true;
    }
  }
  ~ProgressWithWarnings() {
    if (installed_) SetWarningSink(std::move(previous_));
    std::lock_guard<std::mutex> guard(mutex_);
    bar_.reset();  // clears the line
  }
  ProgressWithWarnings(const ProgressWithWarnings&) = delete;
  ProgressWithWarnings& operator=(const ProgressWithWarnings&) = delete;

  void Update(uint64_t done) {
    std::lock_guard<std::mutex> guard(mutex_);
    done_ = done;
    bar_->Update(done, note_);
  }
  // With a note after the counts ("2 confirmed so far").
  void Update(uint64_t done, const std::string& note) {
    std::lock_guard<std::mutex> guard(mutex_);
    done_ = done;
    note_ = note;
    bar_->Update(done, note);
  }

 private:
  // Runs inside LogWarning (under the logger's lock), so it must not log itself.
  void Warn(std::string_view message) {
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

  const std::string label_;
  const uint64_t total_;
  std::mutex mutex_;
  std::optional<ProgressReporter> bar_;
  uint64_t done_ = 0;
  std::string note_;
  WarningSink previous_;
  bool installed_ = false;
};

}  // namespace pecan::cli
