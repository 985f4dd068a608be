// The replay runtime's settings from the environment: PECAN_CLIP, PECAN_VERDICT,
// PECAN_REPLAY_TIMEOUT and PECAN_QUIET (docs/runtime-env.md; the timeout is documented in
// replayer/README.md).
#pragma once

#include <chrono>
#include <string>

namespace pecan::replay {

struct ReplayOptions {
  std::string clip_path;
  std::string verdict_path;  // empty: no verdict file (messages on stderr only)
  // The scheduled part of the run must end within this; zero means no bound.
  std::chrono::milliseconds time_bound{std::chrono::seconds(10)};
  bool quiet = false;
  // Data races: run the two accesses in the order the recording did not show (PECAN_REPLAY_
  // RACE_ORDER=reversed, the default) or as recorded (=recorded). See ReplaySchedule.
  bool reverse_race = true;
};

// PECAN_REPLAY_TIMEOUT is in seconds (fractions allowed); unset or invalid keeps the default.
ReplayOptions ReadReplayOptions();

}  // namespace pecan::replay
