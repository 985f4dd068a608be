// The partial and temporal order graph (PTG, PECAN section 4.3) as a Boost.Graph
// compressed_sparse_row_graph: events as vertices, POR edges solid, TOR edges dashed.
#pragma once

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <optional>
#include <vector>

#include "analyzer/access_locations.h"
#include "analyzer/por_index.h"
#include "trace_format/trace.h"

namespace pecan {

enum class PtgEdgeKind : uint8_t {
  kProgramOrder,  // solid: the thread's next event in the graph
  kSync,          // solid: a thread-communication POR edge (fork, join, notify->wait, ...)
  kTemporal,      // dashed (TOR): consecutive accesses to one shared location, different threads
};

struct PtgEdge {
  PtgEdgeKind kind = PtgEdgeKind::kProgramOrder;
};

using PtgGraph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, PtgEdge,
                                                    boost::no_property, uint32_t, uint64_t>;

enum class PtgScope {
  kAllEvents,  // every event of the trace is a vertex
  kCompact,    // accesses to shared locations and the endpoints of sync edges only (PECAN 5.1):
               // POR among these is still exactly reachability over solid edges
};

struct Ptg {
  PtgGraph graph;
  std::vector<EventIndex> event_of_vertex;  // ascending

  std::optional<uint32_t> VertexOf(EventIndex e) const;
  // POR by graph search (breadth-first over solid edges): for tests and pictures; PorIndex
  // answers the same question in O(1).
  bool SolidPath(EventIndex from, EventIndex to) const;
};

Ptg BuildPtg(const Trace& trace, const PorIndex& por, const LocationTable& locations,
             PtgScope scope);

}  // namespace pecan
