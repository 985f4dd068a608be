// BruteForceOracle: the ground truth for small traces. It explores every order of the trace's
// events that PECAN's model allows and reports each access anomaly that appears in one of them.
//
// Feasible schedules: a schedule is a sequence of distinct events of the trace in which every
// thread's events appear as a prefix of its program order, every POR edge (oracle_model.h) is
// kept, and no lock is held by two threads at once (readers of an rwlock share it). Schedules
// may stop early (a prefix): PECAN's clips are cut after the anomaly, so an anomaly counts even
// when the only orders that show it cannot be completed (they would deadlock later).
//
// Anomalies, each identified by (pattern, variant, events):
//   race       two accesses to the same address by different threads, at least one a write,
//              ADJACENT in some feasible schedule (no event at all in between). events =
//              the two in trace order; variant = their kinds in trace order ("W-R").
//   atomicity  (e_i, e_k, e_j) with e_i, e_j by one thread in one atomic region (a real region,
//              not a single-event unit), consecutive accesses of that thread to the address
//              (no other access to it by that thread in between, in program order), e_k by
//              another thread to the same address, e_i < e_k < e_j in some feasible schedule,
//              and the kinds one of the unserializable triples R-W-R, W-W-R, W-R-W, R-W-W.
//              events = (e_i, e_k, e_j); variant "R-W-R" etc.
//   asv        the eleven atomic-set serializability patterns (Vaziri, Tip, Dolby POPL 2006) with
//              u, u' units of work = atomic regions of two different threads:
//              one address (same rules as atomicity, the middle event's unit is free):
//                "R W' W", "R W' R", "W R' W", "W W' R", "W W' W"
//              two addresses l1 != l2, e1, e4 in u, e2, e3 in u' (program order as in the
//              pattern), appearing in the pattern's order in some feasible schedule:
//                "W(l1) W'(l1) W'(l2) W(l2)", "W(l1) W'(l2) W'(l1) W(l2)",
//                "W(l1) R'(l1) R'(l2) W(l2)", "W(l1) R'(l2) R'(l1) W(l2)",
//                "R(l1) W'(l1) W'(l2) R(l2)", "R(l1) W'(l2) W'(l1) R(l2)"
//              events in the pattern's order.
// Accesses are plain READ/WRITE. Atomic accesses (ATOMIC_*) only synchronize unless
// OracleOptions::atomics_are_data is set; then they take part too (an RMW counts as a write),
// except that two atomic accesses never race with each other.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/finding.h"
#include "tests/support/oracle_model.h"
#include "trace_format/trace.h"

namespace pecan::test {

struct OracleAnomaly {
  std::string pattern;  // "race", "atomicity", "asv"
  std::string variant;
  std::vector<EventIndex> events;
  auto operator<=>(const OracleAnomaly&) const = default;
  bool operator==(const OracleAnomaly&) const = default;
};

struct OracleOptions {
  // The search gives up (throws std::length_error) past this many states for one question.
  uint64_t max_states = 2'000'000;
  bool atomics_are_data = false;
};

class BruteForceOracle {
 public:
  // Keeps a reference to `trace`. Throws std::invalid_argument for traces the model does not
  // cover (semaphores). IsFeasible and Exhibits work on traces of any size; the searches
  // (Anomalies, Witness, ForEachSchedule, ReachableStates) are for small traces: they throw
  // std::invalid_argument when the states cannot be numbered in 64 bits and std::length_error
  // past OracleOptions::max_states.
  explicit BruteForceOracle(const Trace& trace, OracleOptions options = {});

  // Every anomaly of the kinds above that appears in some feasible schedule, sorted.
  const std::vector<OracleAnomaly>& Anomalies() const;
  // Statically well-formed tuples (right threads, regions, addresses and kinds), whether or not
  // any feasible schedule shows them. Anomalies() is the subset that some schedule shows.
  std::vector<OracleAnomaly> Candidates() const;

  // A feasible schedule (prefix) that shows the anomaly, or none if there is no such schedule.
  std::optional<std::vector<EventIndex>> Witness(const OracleAnomaly& anomaly) const;
  // Does the anomaly appear in the recorded order itself?
  bool ObservedInTrace(const OracleAnomaly& anomaly) const;
  // Does this schedule show the anomaly: race events adjacent (either order), others present
  // and in the pattern's order? Feasibility is not checked here.
  static bool Exhibits(const std::vector<EventIndex>& schedule, const OracleAnomaly& anomaly);

  // Is `schedule` feasible (see above)? A prefix is fine unless `complete` is set. On failure,
  // `why` (when given) says which step broke which rule.
  bool IsFeasible(const std::vector<EventIndex>& schedule, bool complete = false,
                  std::string* why = nullptr) const;

  // Calls `visit` for every maximal feasible schedule — complete ones, and with
  // `include_stuck` also those that end because every unfinished thread is blocked (a
  // deadlock under the model). Stops when `visit` returns false or after `limit` schedules.
  // Returns the number visited.
  uint64_t ForEachSchedule(const std::function<bool(const std::vector<EventIndex>&)>& visit,
                           uint64_t limit = UINT64_MAX, bool include_stuck = false) const;

  // How many distinct states (per-thread positions) are reachable from the start.
  uint64_t ReachableStates() const;

  const OracleModel& model() const { return model_; }

 private:
  // Searches for a feasible schedule containing `pattern` in order; when `adjacent` the first
  // two pattern events must be consecutive. Returns the schedule up to the last pattern event.
  std::optional<std::vector<EventIndex>> SearchOrder(const std::vector<EventIndex>& pattern,
                                                     bool adjacent) const;
  bool IsData(EventIndex e) const;

  const Trace& trace_;
  OracleOptions options_;
  OracleModel model_;
  mutable std::optional<std::vector<OracleAnomaly>> anomalies_;
};

// Helpers for comparing with the analyzer: the same (pattern, events) identity, ignoring the
// variant's spelling; race events are compared as an unordered pair.
OracleAnomaly ToOracleAnomaly(const Finding& finding);
bool SameAnomaly(const OracleAnomaly& anomaly, const Finding& finding);
std::string DescribeAnomaly(const OracleAnomaly& anomaly);

}  // namespace pecan::test
