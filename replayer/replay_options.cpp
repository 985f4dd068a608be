// Environment parsing for the replay runtime.
#include "replayer/replay_options.h"

#include <cstdlib>
#include <string_view>

namespace pecan::replay {

ReplayOptions ReadReplayOptions() {
  ReplayOptions options;
  if (const char* clip = std::getenv("PECAN_CLIP")) options.clip_path = clip;
  if (const char* verdict = std::getenv("PECAN_VERDICT")) options.verdict_path = verdict;
  if (const char* timeout = std::getenv("PECAN_REPLAY_TIMEOUT")) {
    char* end = nullptr;
    double seconds = std::strtod(timeout, &end);
    if (end != timeout && *end == '\0' && seconds >= 0 && seconds < 1e7)
      options.time_bound = std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }
  if (const char* order = std::getenv("PECAN_REPLAY_RACE_ORDER"))
    options.reverse_race = std::string_view(order) != "recorded";
  if (const char* quiet = std::getenv("PECAN_QUIET")) options.quiet = quiet[0] == '1';
  if (const char* seed = std::getenv("PECAN_REPLAY_SEED")) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(seed, &end, 10);
    if (end != seed && *end == '\0') options.seed = value;
  }
  if (const char* strategy = std::getenv("PECAN_REPLAY_STRATEGY")) {
    const std::string_view name = strategy;
    if (name == "random") options.continuation.strategy = ContinuationSettings::Strategy::kRandom;
    if (name == "pct") options.continuation.strategy = ContinuationSettings::Strategy::kPct;
    if (name == "racefuzzer")
      options.continuation.strategy = ContinuationSettings::Strategy::kRaceFuzzer;
    if (name == "drfinder")
      options.continuation.strategy = ContinuationSettings::Strategy::kDrFinder;
  }
  if (const char* path = std::getenv("PECAN_MAY_TRIGGER")) {
    options.may_trigger_path = path;
  }
  if (const char* depth = std::getenv("PECAN_PCT_DEPTH")) {
    const long value = std::strtol(depth, nullptr, 10);
    if (value >= 1 && value <= 64) options.continuation.pct_depth = static_cast<uint32_t>(value);
  }
  if (const char* steps = std::getenv("PECAN_PCT_STEPS")) {
    const unsigned long long value = std::strtoull(steps, nullptr, 10);
    if (value >= 1) options.continuation.pct_steps = value;
  }
  if (const char* status = std::getenv("PECAN_EXPECT_EXIT")) {
    char* end = nullptr;
    const long value = std::strtol(status, &end, 10);
    if (end != status && *end == '\0' && value >= 0 && value <= 255)
      options.expected_exit_status = static_cast<int>(value);
  }
  if (const char* path = std::getenv("PECAN_EXECUTED_CLIP")) options.executed_clip_path = path;
  if (const char* always = std::getenv("PECAN_EXECUTED_CLIP_ALWAYS"))
    options.executed_clip_always = always[0] == '1';
  return options;
}

}  // namespace pecan::replay
