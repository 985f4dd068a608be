// The warning logger: one mutex-guarded sink, stderr by default.
#include "trace_format/log.h"

#include <iostream>
#include <mutex>

#include "trace_format/utf8_text.h"

namespace pecan {
namespace {

std::mutex& SinkMutex() {
  static std::mutex mutex;
  return mutex;
}

WarningSink& Sink() {
  static WarningSink sink;
  return sink;
}

}  // namespace

void LogWarning(std::string_view message) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  if (Sink()) {
    Sink()(message);
  } else {
    std::cerr << "pecan: warning: " << PrintableText(message) << "\n";
  }
}

WarningSink SetWarningSink(WarningSink sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  WarningSink previous = std::move(Sink());
  Sink() = std::move(sink);
  return previous;
}

ScopedWarningCapture::ScopedWarningCapture() {
  previous_ = SetWarningSink([this](std::string_view m) { messages_.emplace_back(m); });
}

ScopedWarningCapture::~ScopedWarningCapture() {
  SetWarningSink(std::move(previous_));
}

}  // namespace pecan
