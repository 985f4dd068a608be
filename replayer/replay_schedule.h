// A clip's schedule flattened for the replayer: one entry per step (logical thread, kind,
// site), the thread table by creation path, and the anomaly's steps with their recorded
// locations. Built once at start-up; read-only afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replayer/scheduler_types.h"
#include "trace_format/event_kind.h"

namespace pecan::proto {
class Clip;
}

namespace pecan::replay {

inline constexpr uint64_t kNotARepeat = UINT64_MAX;

// 24 bytes: a replay holds one per step of the clip.
struct ScheduleStep {
  // The earlier step this access repeats (proto/clip.proto, step_repeat_of), or kNotARepeat.
  uint64_t repeat_of = kNotARepeat;
  LogicalThread thread = kNoThread;  // index into ReplaySchedule::threads
  uint32_t site = 0;                 // index into ReplaySchedule::sites
  // Repeats the recording left out just before this step (proto/clip.proto); the recorder
  // counts at most kMaxRepeatsBefore (65535) in a row.
  uint16_t repeats_before = 0;
  EventKind kind = EventKind::kUnspecified;
};
static_assert(sizeof(ScheduleStep) == 24);

struct ScheduleThread {
  uint32_t clip_id = 0;  // the thread's id in the clip (and its trace)
  LogicalThread parent = kNoThread;
  uint32_t ordinal = 0;
  std::string name;
};

struct ScheduleModule {
  uint32_t id = 0;
  std::string path;
  std::string build_id;  // raw bytes
};

struct ScheduleSite {
  uint32_t clip_id = 0;
  uint32_t module = 0;  // ScheduleModule::id; 0 = no module (offset is an absolute value)
  uint64_t offset = 0;
};

struct AnomalyStep {
  uint64_t step = 0;  // position in the schedule
  uint64_t recorded_address = 0;
  uint32_t recorded_size = 0;
};

// A deadlock clip's request: the thread of the cycle that must end up blocked acquiring a lock
// at `site` (the clip stops it just before).
struct DeadlockRequest {
  LogicalThread thread = kNoThread;
  uint32_t site = 0;  // index into ReplaySchedule::sites
  EventKind kind = EventKind::kLock;
};

struct ReplaySchedule {
  std::vector<ScheduleStep> steps;
  std::vector<ScheduleThread> threads;  // indexed by LogicalThread
  std::vector<ScheduleModule> modules;
  std::vector<ScheduleSite> sites;
  std::vector<AnomalyStep> anomaly;  // in the pattern's order
  std::string finding_id;
  std::string pattern;
  // Per event of the clip's finding: its site (index into sites), or kNoSite when the clip's
  // site table lacks it.
  static constexpr uint32_t kNoSite = UINT32_MAX;
  std::vector<uint32_t> finding_sites;
  // For a deadlock clip (pattern "deadlock"), one per thread of the cycle; else empty.
  std::vector<DeadlockRequest> deadlock_requests;
  // Whether the clip says which steps are repeats (format 1.1 on). Without it, every access
  // must be a step and repeats are matched like any other access.
  bool knows_repeats = false;

  // Flattens and checks a clip (thread, site and step references, anomaly positions).
  // Throws PecanError("<what>") naming the first inconsistency.
  static ReplaySchedule FromClip(const proto::Clip& clip);

  // A data race's clip runs its two accesses back to back in the recorded order, which the
  // recorded run already survived. Swapping them (they are adjacent and independent, so both
  // orders are feasible when the race is real) runs the order the recording did not show, as
  // PECAN's Figure 1 schedule does. Returns false (and changes nothing) when the clip is not
  // such a race.
  bool ReverseRaceOrder();

  // "T1" (or the recorded name), "lock at prog+0x1234"
  std::string ThreadName(LogicalThread thread) const;
  std::string DescribeSite(uint32_t site) const;
  const ScheduleModule* FindModule(uint32_t id) const;
};

}  // namespace pecan::replay
