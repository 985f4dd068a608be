// ProgressReporter: a progress bar with percentage and counts on stderr for long runs (analyze,
// triage), shown only when stderr is a terminal so logs and pipes stay clean. A long run can ask
// for signs of life (KeepAlive): the time taken on the bar, and a plain line now and then in a
// log.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace pecan {

// How often a long run's progress writes a line to a log (KeepAlive).
inline constexpr double kKeepAliveLogSeconds = 30;

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
  // For runs that may take minutes with the bar standing still (one long step): on a terminal
  // the bar shows the seconds taken from 2 s on, redrawn every second; when stderr is not a
  // terminal, a line "pecan: LABEL: NN% (done/total), note, N s" is written every
  // `log_seconds` (none before the first `log_seconds` have passed).
  void KeepAlive(double log_seconds);
  // Clears the line; later updates are ignored.
  void Finish();

  bool enabled() const { return enabled_; }

 private:
  void UpdateLocked(uint64_t done, const std::string& note);  // with mutex_ held
  void Draw(bool tick);                                       // with mutex_ held
  void Tick();

  std::string label_;
  uint64_t total_;
  int shown_percent_ = -1;
  uint64_t shown_done_ = 0;
  std::string shown_note_;
  int shown_width_ = 0;  // widest line drawn, to clear it
  bool enabled_;
  bool terminal_;

  // KeepAlive's ticker.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
  bool stopping_ = false;
  double log_seconds_ = 0;
  double started_ = 0;     // seconds on the steady clock
  double last_logged_ = 0;
};

}  // namespace pecan
