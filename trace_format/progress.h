// ProgressReporter: a progress bar with percentage and counts on stderr for long runs (analyze,
// triage), shown only when stderr is a terminal so logs and pipes stay clean.
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

  // Reports that `done` of `total` is finished; redraws when the percentage changes (or, for
  // totals up to 100, the count).
  void Update(uint64_t done);
  // The same with a note after the counts ("3 confirmed"), redrawn when it changes.
  void Update(uint64_t done, const std::string& note);
  // Clears the line; later updates are ignored.
  void Finish();

  bool enabled() const { return enabled_; }

 private:
  std::string label_;
  uint64_t total_;
  int shown_percent_ = -1;
  uint64_t shown_done_ = 0;
  std::string shown_note_;
  int shown_width_ = 0;  // widest line drawn, to clear it
  bool enabled_;
};

}  // namespace pecan
