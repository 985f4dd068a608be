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

namespace pecan::workflow {

class ProgressWithWarnings {
 public:
  ProgressWithWarnings(std::string label, uint64_t total);
  ~ProgressWithWarnings();
  ProgressWithWarnings(const ProgressWithWarnings&) = delete;
  ProgressWithWarnings& operator=(const ProgressWithWarnings&) = delete;

  void Update(uint64_t done);
  // With a note after the counts ("2 confirmed so far").
  void Update(uint64_t done, const std::string& note);

 private:
  // Runs inside LogWarning (under the logger's lock), so it must not log itself.
  void Warn(std::string_view message);

  const std::string label_;
  const uint64_t total_;
  std::mutex mutex_;
  std::optional<ProgressReporter> bar_;
  uint64_t done_ = 0;
  std::string note_;
  WarningSink previous_;
  bool installed_ = false;
};

}  // namespace pecan::workflow
