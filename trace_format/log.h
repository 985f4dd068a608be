// pecan's one logger for warnings: "pecan: warning: ..." on stderr, or into a sink that a test
// (or a tool that collects warnings) installs instead.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace pecan {

// Prints "pecan: warning: <message>" on stderr (or hands <message> to the installed sink).
void LogWarning(std::string_view message);

// Replaces where warnings go; an empty sink restores stderr. Returns the previous sink.
using WarningSink = std::function<void(std::string_view)>;
WarningSink SetWarningSink(WarningSink sink);

// Collects every warning logged during its lifetime instead of printing it (for tests).
class ScopedWarningCapture {
 public:
  ScopedWarningCapture();
  ~ScopedWarningCapture();
  ScopedWarningCapture(const ScopedWarningCapture&) = delete;
  ScopedWarningCapture& operator=(const ScopedWarningCapture&) = delete;

  const std::vector<std::string>& messages() const { return messages_; }

 private:
  std::vector<std::string> messages_;
  WarningSink previous_;
};

}  // namespace pecan
