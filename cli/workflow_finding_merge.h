// Merges the findings of many traces by (pattern, variant, site tuple): how many and which traces
// show each, summed witnesses, and the best clip (fewest steps; the earlier trace on a tie).
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

#include "cli/workflow_finding_summary.h"
#include "proto/clip.pb.h"

namespace pecan::cli {

// One finding of one trace as triage keeps it: the summary (key, id, events, clip_steps or
// clip_error) and the clip itself, which is only written if it turns out to be the best.
struct TriagedFinding {
  SummaryFinding summary;
  std::shared_ptr<const proto::Clip> clip;  // null when no feasible clip
};

struct TriagedTrace {
  SummaryTrace trace;
  std::vector<TriagedFinding> findings;
};

class FindingMerger {
 public:
  // `order` is the trace's position among the inputs; results do not depend on arrival order.
  // Only the best finding per key is kept, so memory grows with distinct findings, not traces.
  void Add(size_t order, TriagedTrace triaged) {
    for (TriagedFinding& finding : triaged.findings) {
      auto [it, fresh] = merged_.try_emplace(finding.summary.key);
      Entry& entry = it->second;
      entry.witnesses += finding.summary.witnesses;
      // A trace counts once per finding, even if its analysis reported the key twice.
      if (entry.trace_orders.empty() || entry.trace_orders.back().first != order)
        entry.trace_orders.emplace_back(order, triaged.trace.path);
      if (fresh || Better(finding, order, entry)) {
        entry.best = std::move(finding);
        entry.best_order = order;
      }
    }
  }

  // Every distinct finding, in key order, with its traces in input order, summed witnesses and
  // (when any trace had one) its best clip. Each keeps the analyzer's id — the one hunt and
  // `pecan analyze` print — unless an earlier finding (in key order) has it already: two builds
  // of one program name the same file and offsets alike but differ in build-id, so their keys
  // differ. The later one gets the key's digest appended, as its clip's file name must differ.
  std::vector<TriagedFinding> Results() const {
    std::vector<TriagedFinding> results;
    std::set<std::string> ids;
    for (const auto& [key, entry] : merged_) {
      TriagedFinding finding = entry.best;
      if (!ids.insert(finding.summary.id).second) {
        finding.summary.id += "-" + HexString(StableDigest(key) & 0xffffffffu, 8);
        ids.insert(finding.summary.id);
      }
      auto orders = entry.trace_orders;
      std::sort(orders.begin(), orders.end());
      finding.summary.traces.clear();
      for (const auto& [order, path] : orders) finding.summary.traces.push_back(path);
      finding.summary.witnesses = entry.witnesses;
      results.push_back(std::move(finding));
    }
    return results;
  }

  size_t size() const { return merged_.size(); }

 private:
  struct Entry {
    TriagedFinding best;
    size_t best_order = 0;
    std::vector<std::pair<size_t, std::string>> trace_orders;
    uint64_t witnesses = 0;
  };

  // A clip beats no clip; then fewer steps; then the earlier trace, so the choice is the same
  // whatever order the parallel analyses finish in.
  static bool Better(const TriagedFinding& candidate, size_t order, const Entry& entry) {
    const bool has = candidate.clip != nullptr, had = entry.best.clip != nullptr;
    if (has != had) return has;
    if (has && candidate.summary.clip_steps != entry.best.summary.clip_steps)
      return candidate.summary.clip_steps < entry.best.summary.clip_steps;
    return order < entry.best_order;
  }

  std::map<std::string, Entry> merged_;
};

}  // namespace pecan::cli
