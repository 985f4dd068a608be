// The partial and temporal order graph (PTG, PECAN section 4.3) as a Boost.Graph
// compressed_sparse_row_graph: events as vertices, POR edges solid, TOR edges dashed; and its
// picture around findings as Graphviz DOT (`pecan analyze --ptg-dot`).
#pragma once

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <vector>

#include "analyzer/access_locations.h"
#include "analyzer/finding.h"
#include "analyzer/por_index.h"
#include "analyzer/symbolizer.h"
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

struct PtgDotOptions {
  // Events of a finding's thread kept before and after its events (and between two of its events
  // on one thread when at most kMaxSpan apart).
  uint32_t context = 2;
  static constexpr uint64_t kMaxSpan = 32;
};

// Writes the PTG around `findings` as one Graphviz digraph (boost::write_graphviz): the findings'
// events and the events they overtake, with their threads' neighbouring events, and every PTG edge
// among them — POR edges solid (program order black, thread communication blue), TOR edges
// dashed. Node "e<N>" is trace event N, labelled with its thread, operation, target and site;
// the findings' own events are filled and carry the findings' numbers (1-based, in `findings`
// order), which the graph's label lists. Builds the full PTG (every event a vertex).
void WritePtgDot(std::ostream& out, const Trace& trace, const std::vector<Finding>& findings,
                 Symbolizer& symbolizer, const PtgDotOptions& options = {});

}  // namespace pecan
