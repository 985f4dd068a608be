// Merges the findings of many traces by (pattern, variant, site tuple): how many and which traces
// show each, summed witnesses, and the best clip (fewest steps; the earlier trace on a tie).
// Mergers of disjoint or overlapping sets of traces merge in turn (triage's shards): the union
// is the same whatever the grouping or order, so merging is associative, commutative and
// idempotent.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "workflow/finding_summary.h"
#include "workflow/stored_clip.h"

namespace pecan::workflow {

// One finding of one trace as triage keeps it: the summary (key, id, events, clip_steps or
// clip_error) and the clip itself, which is only written if it turns out to be the best.
struct TriagedFinding {
  SummaryFinding summary;
  std::shared_ptr<const StoredClip> clip;  // null when no feasible clip
  std::string replay_log;  // the log of the replay that gave summary.verdict, when replayed
};

struct TriagedTrace {
  SummaryTrace trace;
  std::vector<TriagedFinding> findings;
};

class FindingMerger {
 public:
  // Everything kept of one distinct finding.
  struct Entry {
    TriagedFinding best;  // its summary's traces and witnesses are filled in by Results()
    size_t best_order = 0;
    // Trace position -> (path, witnesses in that trace). A trace counts once per finding, even
    // if its analysis reported the key twice (the witnesses add up).
    std::map<size_t, std::pair<std::string, uint64_t>> traces;
  };

  // `order` is the trace's position among the inputs; results do not depend on arrival order.
  // Only the best finding per key is kept, so memory grows with distinct findings, not traces.
  void Add(size_t order, TriagedTrace triaged);

  // Adds an entry as another merger (a shard's) kept it.
  void Add(const std::string& key, Entry other);

  void Merge(FindingMerger other);

  // The replay of a finding's best clip (by key); false when no finding has that key.
  bool SetVerdict(const std::string& key, const SummaryVerdict& verdict,
                  const std::string& replay_log);

  // Every distinct finding, in key order, with its traces in input order, summed witnesses and
  // (when any trace had one) its best clip. Each keeps the analyzer's id — the one hunt and
  // `pecan analyze` print — unless an earlier finding (in key order) has it already: two builds
  // of one program name the same file and offsets alike but differ in build-id, so their keys
  // differ. The later one gets the key's digest appended, as its clip's file name must differ.
  std::vector<TriagedFinding> Results() const;

  const std::map<std::string, Entry>& entries() const { return merged_; }
  size_t size() const { return merged_.size(); }

 private:
  // A clip beats no clip; then fewer steps; then the earlier trace, so the choice is the same
  // whatever order the parallel analyses finish in. The same candidate twice (two shards' merges
  // of one trace) keeps a replay's verdict over none, and of two verdicts the stronger.
  static bool Better(const TriagedFinding& candidate, size_t order, const Entry& entry);

  // Lower is stronger: a failure, then confirmed, then refuted, then errors; then not replayed.
  // The text breaks ties, so the choice never depends on which merge came first.
  static std::pair<int, std::string> VerdictRank(const SummaryVerdict& verdict);

  std::map<std::string, Entry> merged_;
};

}  // namespace pecan::workflow
