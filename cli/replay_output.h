// `pecan replay`'s verdict: the runtime's verdict file and the program's end combined into one
// verdict, printed as one line or one JSON object, with the anomaly's events named by source line.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/replay_program_run.h"
#include "cli/replay_stuck_text.h"
#include "proto/clip.pb.h"
#include "proto/report.pb.h"

namespace pecan::cli {

struct AnomalyEventText {
  std::string thread;  // "T1" or the recorded name
  std::string kind;    // "read y": the kind, and the variable for accesses when known
  std::string site;    // "pecan_figure1.c:28 (thread_t1)", else module+offset
};

// Whether the replay runs the clip's race with its two accesses swapped: what the runtime's
// ReplaySchedule::ReverseRaceOrder does when asked to (replayer/replay_schedule.cpp) — a "race"
// clip whose two anomaly steps are adjacent and of different threads.
bool RaceRunsReversed(const proto::Clip& clip, bool reverse_requested);

// The clip's anomaly events with source locations, in the order the replay runs them: the
// pattern's order, or the race's two accesses swapped when `race_reversed`.
std::vector<AnomalyEventText> DescribeAnomaly(const proto::Clip& clip, bool race_reversed);

struct FinalVerdict {
  // "hatched", "followed" (a clip without anomaly events ran to its end), "exposed" (the run
  // failed before the clip was done, after leaving it or while following it), "deadlocked" (a
  // deadlock clip's threads blocked at their predicted requests), "infeasible", "error"
  std::string verdict;
  // "", "assertion", "crashed", "exit", "deadlock", "timeout"
  std::string failure;
  std::string failure_message;
  std::string failure_thread;  // the thread that failed ("T1"; "" when unknown)
  FailureSite failure_site;    // where it failed
  std::string divergence;    // where a thread left the clip ("" when none did)
  std::string failure_clip;  // the clip of the failing run, when one was written
  std::string reason;
  uint64_t steps_executed = 0;
  uint64_t steps_total = 0;
  bool timed_out = false;          // the time bound ended the run (the runtime's or ours)
  std::optional<int> exit_status;  // the program's own exit status, if it exited by itself
  int signal = 0;                  // the signal that ended the process, 0 if none
  uint64_t events = 0;             // events run one at a time (the clip's and after it)
  uint64_t idle_handovers = 0;     // turns the watchdog took from a stopped holder (timing)
  uint64_t unsettled_choices = 0;  // choices made before every thread settled (timing)
  // --strategy racefuzzer: the real races the run brought about (RealRacesJson), how many in
  // all, and the first in words.
  nlohmann::json races = nlohmann::json::array();
  uint64_t races_total = 0;
  std::string first_race;
  double seconds = 0;
};

// `program` (as the user typed it) and `timeout_seconds` are for messages only;
// `expected_exit` is the program's normal exit status (--expect-exit).
FinalVerdict Conclude(const std::optional<proto::Verdict>& runtime_verdict, const ChildEnd& end,
                      const proto::Clip& clip, const std::string& program, double timeout_seconds,
                      int expected_exit = 0);

// 0 hatched, followed or exposed, 3 infeasible, 2 error.
int ExitStatusFor(const FinalVerdict& verdict);

// One line: "pecan: hatched: race R-W [id] T2 write y at f.c:39 (t2), T1 read y at ... (5/5
// steps); then assertion: ...", or "pecan: infeasible: ... -- reason (3/5 steps)".
void PrintVerdictLine(std::ostream& out, const FinalVerdict& verdict, const proto::Clip& clip,
                      const std::vector<AnomalyEventText>& anomaly);

// One JSON object on one line (the fields `pecan replay --help` lists).
void PrintVerdictJson(std::ostream& out, const FinalVerdict& verdict, const proto::Clip& clip,
                      const std::vector<AnomalyEventText>& anomaly, bool race_reversed,
                      const std::string& clip_path);

// {"verdict":"error","reason":...,"clip":...}: --json's answer when replay could not start.
void PrintErrorJson(std::ostream& out, const std::string& reason, const std::string& clip_path);

}  // namespace pecan::cli
