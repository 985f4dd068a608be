// PTG construction: vertices in trace order, edges collected as (source, target, kind) and
// handed to the CSR constructor sorted, so the graph is built once in linear time.
#include "analyzer/ptg.h"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <deque>
#include <tuple>

namespace pecan {

std::optional<uint32_t> Ptg::VertexOf(EventIndex e) const {
  auto it = std::lower_bound(event_of_vertex.begin(), event_of_vertex.end(), e);
  if (it == event_of_vertex.end() || *it != e) return std::nullopt;
  return static_cast<uint32_t>(it - event_of_vertex.begin());
}

namespace {

struct SolidOnly {
  const PtgGraph* graph = nullptr;
  template <typename Edge>
  bool operator()(const Edge& e) const {
    return (*graph)[e].kind != PtgEdgeKind::kTemporal;
  }
};

struct StopAt : boost::default_bfs_visitor {};

}  // namespace

bool Ptg::SolidPath(EventIndex from, EventIndex to) const {
  const auto source = VertexOf(from);
  const auto target = VertexOf(to);
  if (!source || !target || from == to) return false;
  const boost::filtered_graph<PtgGraph, SolidOnly> solid(graph, SolidOnly{&graph});
  std::vector<boost::default_color_type> colors(num_vertices(graph), boost::white_color);
  auto color_map =
      boost::make_iterator_property_map(colors.begin(), get(boost::vertex_index, graph));
  boost::breadth_first_visit(solid, *source, boost::visitor(StopAt{}).color_map(color_map));
  return colors[*target] != boost::white_color;
}

Ptg BuildPtg(const Trace& trace, const PorIndex& por, const LocationTable& locations,
             PtgScope scope) {
  Ptg ptg;
  const size_t n = trace.size_events();
  if (scope == PtgScope::kAllEvents) {
    ptg.event_of_vertex.resize(n);
    for (EventIndex i = 0; i < n; ++i) ptg.event_of_vertex[i] = i;
  } else {
    std::vector<bool> keep(n, false);
    for (EventIndex i = 0; i < n; ++i) keep[i] = locations.Of(i) != kNoLocation;
    for (const auto& [from, to] : por.SyncEdges()) keep[from] = keep[to] = true;
    for (EventIndex i = 0; i < n; ++i) {
      if (keep[i]) ptg.event_of_vertex.push_back(i);
    }
  }
  auto vertex = [&](EventIndex e) { return *ptg.VertexOf(e); };

  std::vector<std::pair<uint32_t, uint32_t>> edges;
  std::vector<PtgEdge> kinds;
  auto add = [&](uint32_t a, uint32_t b, PtgEdgeKind kind) {
    edges.emplace_back(a, b);
    kinds.push_back(PtgEdge{kind});
  };
  std::vector<std::optional<uint32_t>> last_of_thread(por.ThreadCount());
  for (uint32_t v = 0; v < ptg.event_of_vertex.size(); ++v) {
    const ThreadId t = trace.thread[ptg.event_of_vertex[v]];
    if (last_of_thread[t]) add(*last_of_thread[t], v, PtgEdgeKind::kProgramOrder);
    last_of_thread[t] = v;
  }
  for (const auto& [from, to] : por.SyncEdges()) add(vertex(from), vertex(to), PtgEdgeKind::kSync);
  for (LocationId l = 0; l < locations.Count(); ++l) {
    const EventIndex* a = locations.AccessesBegin(l);
    for (const EventIndex* b = a + 1; b < locations.AccessesEnd(l); ++a, ++b) {
      if (trace.thread[*a] != trace.thread[*b]) add(vertex(*a), vertex(*b), PtgEdgeKind::kTemporal);
    }
  }
  // The CSR constructor wants edges sorted by source.
  std::vector<size_t> order(edges.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return std::tie(edges[x].first, edges[x].second) < std::tie(edges[y].first, edges[y].second);
  });
  std::vector<std::pair<uint32_t, uint32_t>> sorted_edges(edges.size());
  std::vector<PtgEdge> sorted_kinds(edges.size());
  for (size_t i = 0; i < order.size(); ++i) {
    sorted_edges[i] = edges[order[i]];
    sorted_kinds[i] = kinds[order[i]];
  }
  ptg.graph = PtgGraph(boost::edges_are_sorted, sorted_edges.begin(), sorted_edges.end(),
                       sorted_kinds.begin(), static_cast<uint32_t>(ptg.event_of_vertex.size()));
  return ptg;
}

}  // namespace pecan
