// ProgressReporter: redraws "label [####....]  NN% (done/total)" with a carriage return, only
// on a terminal; KeepAlive adds the time taken (a ticker thread redraws it) or, in a log, a line
// now and then.
#include "trace_format/progress.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace pecan {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ProgressReporter::ProgressReporter(std::string label, uint64_t total)
    : label_(std::move(label)),
      total_(total),
      enabled_(isatty(STDERR_FILENO) == 1),
      terminal_(enabled_),
      started_(Now()) {}

ProgressReporter::~ProgressReporter() {
  Finish();
}

void ProgressReporter::Update(uint64_t done) {
  std::lock_guard<std::mutex> lock(mutex_);
  UpdateLocked(done, shown_note_);
}

void ProgressReporter::Update(uint64_t done, const std::string& note) {
  std::lock_guard<std::mutex> lock(mutex_);
  UpdateLocked(done, note);
}

void ProgressReporter::UpdateLocked(uint64_t done, const std::string& note) {
  if (!enabled_) return;
  const uint64_t clamped = std::min(done, total_);
  const int percent = total_ == 0 ? 100 : static_cast<int>(clamped * 100 / total_);
  // Redraw when the percentage moves; with small totals, on every step (the count changes).
  if (percent == shown_percent_ && (clamped == shown_done_ || total_ > 100) &&
      note == shown_note_)
    return;
  shown_percent_ = percent;
  shown_done_ = clamped;
  shown_note_ = note;
  Draw(false);
}

void ProgressReporter::Draw(bool tick) {
  const double elapsed = Now() - started_;
  const bool timed = log_seconds_ > 0 && elapsed >= 2;
  char time_text[32] = "";
  if (timed) std::snprintf(time_text, sizeof time_text, ", %.0f s", elapsed);
  const unsigned long long done = shown_done_, total = total_;
  if (!terminal_) {  // a log: only the ticker writes, a whole line at a time
    if (!tick) return;
    std::fprintf(stderr, "pecan: %s: %d%% (%llu/%llu)%s%s%s\n", label_.c_str(),
                 std::max(shown_percent_, 0), done, total, shown_note_.empty() ? "" : ", ",
                 shown_note_.c_str(), time_text);
    std::fflush(stderr);
    return;
  }
  if (shown_percent_ < 0) return;  // nothing to redraw yet
  constexpr int kBarWidth = 30;
  const int filled = shown_percent_ * kBarWidth / 100;
  char bar[kBarWidth + 1];
  for (int i = 0; i < kBarWidth; ++i) bar[i] = i < filled ? '#' : '.';
  bar[kBarWidth] = '\0';
  const int length = std::fprintf(stderr, "\r%s [%s] %3d%% (%llu/%llu)%s%s%s", label_.c_str(),
                                  bar, shown_percent_, done, total,
                                  shown_note_.empty() ? "" : ", ", shown_note_.c_str(), time_text);
  // A shorter line than before leaves the old one's tail: pad it away.
  if (length - 1 < shown_width_) std::fprintf(stderr, "%*s", shown_width_ - (length - 1), "");
  shown_width_ = std::max(shown_width_, length - 1);
  std::fflush(stderr);
}

void ProgressReporter::KeepAlive(double log_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ticker_.joinable() || stopping_ || log_seconds <= 0) return;
  log_seconds_ = log_seconds;
  last_logged_ = started_;
  enabled_ = true;  // in a log too: the ticker's lines
  ticker_ = std::thread([this] { Tick(); });
}

void ProgressReporter::Tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::seconds(1));
    if (stopping_) break;
    const double now = Now();
    if (terminal_) {
      Draw(true);
    } else if (now - last_logged_ >= log_seconds_) {
      last_logged_ = now;
      Draw(true);
    }
  }
}

void ProgressReporter::Finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    if (enabled_ && terminal_ && shown_percent_ >= 0) {
      std::fprintf(stderr, "\r%*s\r", shown_width_, "");
      std::fflush(stderr);
    }
    enabled_ = false;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

}  // namespace pecan
