// The state a one-pass detector keeps at the source of each PorIndex sync edge (fork, join,
// notify -> wait, ...) until the edge's destination is visited, freed after its last use.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

template <typename Snapshot>
class SyncEdgeSnapshots {
 public:
  // `edges` (PorIndex::SyncEdges: in destination order, each going forward) must outlive this.
  explicit SyncEdgeSnapshots(const std::vector<std::pair<EventIndex, EventIndex>>& edges)
      : edges_(edges) {
    for (const auto& [source, destination] : edges) sources_.push_back(source);
    std::sort(sources_.begin(), sources_.end());
    size_t out = 0;
    for (size_t k = 0; k < sources_.size(); ++k) {
      if (out > 0 && sources_[out - 1] == sources_[k]) {
        ++uses_.back();
      } else {
        sources_[out++] = sources_[k];
        uses_.push_back(1);
      }
    }
    sources_.resize(out);
    snapshots_.resize(out);
  }

  // Calls `arrive(snapshot)` for each edge into event i, in the edges' order. Events must be
  // visited in trace order.
  template <typename Arrive>
  void ForEachArriving(EventIndex i, Arrive&& arrive) {
    for (; next_edge_ < edges_.size() && edges_[next_edge_].second == i; ++next_edge_)
      arrive(Take(edges_[next_edge_].first));
  }

  // True when event i (visited in trace order) is the source of an edge: Keep its state then.
  bool IsSource(EventIndex i) const {
    return next_source_ < sources_.size() && sources_[next_source_] == i;
  }
  void Keep(Snapshot snapshot) { snapshots_[next_source_++] = std::move(snapshot); }

 private:
  Snapshot Take(EventIndex source) {
    const size_t k = std::lower_bound(sources_.begin(), sources_.end(), source) - sources_.begin();
    if (--uses_[k] == 0) return std::move(snapshots_[k]);
    return snapshots_[k];
  }

  const std::vector<std::pair<EventIndex, EventIndex>>& edges_;
  std::vector<EventIndex> sources_;  // sorted, distinct
  std::vector<uint32_t> uses_;       // per source: edges still to arrive
  std::vector<Snapshot> snapshots_;
  size_t next_edge_ = 0;
  size_t next_source_ = 0;
};

}  // namespace pecan
