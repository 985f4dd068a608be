// ProgressReporter: a percentage on stderr for long runs (analyze, triage), shown only when
// stderr is a terminal so logs and pipes stay clean.
#pragma once

#include <cstdint>
#include <string>

namespace pecan {

class ProgressReporter {
 public:
  // `label` prefixes the line ("analyzing"); `total` is the amount that means 100%.
  ProgressReporter(std::string label, uint64_t total);
  ~ProgressReporter();  // clears the line if anything was shown
  ProgressReporter(const ProgressReporter&) = delete;
  ProgressReporter& operator=(const ProgressReporter&) = delete;

  // Reports that `done` of `total` is finished; redraws only when the percentage changes.
  void Update(uint64_t done);
  // Clears the line; later updates are ignored.
  void Finish();

  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  uint64_t total_;
  int shown_percent_ = -1;
  bool enabled_;
};

}  // namespace pecan
