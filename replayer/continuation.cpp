// MakeContinuation: the strategy a replay continues with.
#include "replayer/continuation.h"

#include "replayer/drfinder.h"
#include "replayer/pct_continuation.h"
#include "replayer/race_fuzzer.h"
#include "replayer/seeded_tail.h"

namespace pecan::replay {

std::unique_ptr<Continuation> MakeContinuation(SyncModel& model,
                                               const ContinuationSettings& settings) {
  switch (settings.strategy) {
    case ContinuationSettings::Strategy::kPct:
      return std::make_unique<PctContinuation>(model, settings.seed, settings.pct_depth,
                                               settings.pct_steps);
    case ContinuationSettings::Strategy::kRaceFuzzer:
      return std::make_unique<RaceFuzzerContinuation>(model, settings.seed, settings.racing_pcs,
                                                      settings.on_race);
    case ContinuationSettings::Strategy::kDrFinder:
      return std::make_unique<DrFinderContinuation>(
          model, settings.seed, settings.may_trigger ? *settings.may_trigger : MayTriggerMap{});
    case ContinuationSettings::Strategy::kRandom:
      return std::make_unique<SeededTail>(model, settings.seed, /*slices=*/false);
    case ContinuationSettings::Strategy::kSeeded:
      break;
  }
  return std::make_unique<SeededTail>(model, settings.seed);
}

}  // namespace pecan::replay
