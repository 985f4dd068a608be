// Names of the scheduler's enums, for verdict reasons and test messages.
#include "replayer/scheduler_types.h"

namespace pecan::replay {

std::string_view ThreadActivityName(ThreadActivity activity) {
  switch (activity) {
    case ThreadActivity::kUnattached:
      return "not started";
    case ThreadActivity::kStarting:
      return "starting";
    case ThreadActivity::kRunning:
      return "running";
    case ThreadActivity::kWaitingForTurn:
      return "waiting for its turn";
    case ThreadActivity::kBlockedHoldingTurn:
      return "blocked in a call it holds the turn for";
    case ThreadActivity::kBlocked:
      return "blocked in a synchronization call";
    case ThreadActivity::kExited:
      return "exited";
  }
  return "?";
}

std::string_view StopCauseName(StopCause cause) {
  switch (cause) {
    case StopCause::kDivergence:
      return "divergence";
    case StopCause::kDeadlock:
      return "deadlock";
    case StopCause::kTimeBound:
      return "time bound";
    case StopCause::kAnomalyRefuted:
      return "anomaly refuted";
    case StopCause::kThreadVanished:
      return "thread vanished";
    case StopCause::kProgramExited:
      return "program exited";
    case StopCause::kProgramFailed:
      return "program failed";
    case StopCause::kInternal:
      return "internal";
  }
  return "?";
}

}  // namespace pecan::replay
