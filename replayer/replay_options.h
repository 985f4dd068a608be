// The replay runtime's settings from the environment: PECAN_CLIP, PECAN_VERDICT,
// PECAN_REPLAY_TIMEOUT, PECAN_REPLAY_SEED, PECAN_EXECUTED_CLIP(_ALWAYS) and PECAN_QUIET
// (docs/runtime-env.md).
#pragma once

#include <chrono>
#include <string>

#include "replayer/continuation.h"

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
  // After the clip (or a divergence) the threads stay serialized under choices drawn from
  // this seed (PECAN_REPLAY_SEED, default 0).
  uint64_t seed = 0;
  // How the run continues after the clip: the strategy and its settings (PECAN_REPLAY_STRATEGY
  // = seeded (default) | random | pct | racefuzzer, PECAN_PCT_DEPTH, PECAN_PCT_STEPS); the seed
  // above. racefuzzer targets the statements of the clip's race finding; drfinder reads its
  // may-trigger relations from PECAN_MAY_TRIGGER (may_trigger_path).
  ContinuationSettings continuation;
  // drfinder: lines "D depth", "F site function", "G site class" (a static lock), "A site class"
  // (an allocation call), "R function class", sites being ids of the clip's site table.
  std::string may_trigger_path;
  // The program's normal exit status (PECAN_EXPECT_EXIT, default 0): any other is a failure.
  int expected_exit_status = 0;
  // Where to write the clip of the schedule this run executed (PECAN_EXECUTED_CLIP): when the
  // program fails (a failure clip), or at every end of the run with PECAN_EXECUTED_CLIP_ALWAYS=1.
  std::string executed_clip_path;
  bool executed_clip_always = false;
};

// PECAN_REPLAY_TIMEOUT is in seconds (fractions allowed); unset or invalid keeps the default.
ReplayOptions ReadReplayOptions();

}  // namespace pecan::replay
