// PTG construction: vertices in trace order, edges collected as (source, target, kind) and
// handed to the CSR constructor sorted, so the graph is built once in linear time. The DOT picture
// is the PTG filtered to the events around the findings, written by boost::write_graphviz.
#include "analyzer/ptg.h"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <cstdio>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <tuple>

#include "analyzer/report_events.h"

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

namespace {

// Text for a DOT quoted string; `newline` replaces line breaks (DOT's \\n centres a line, \\l
// left-justifies it).
std::string DotText(const std::string& text, const char* newline = "\\n") {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += newline;
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string EventLabel(const Trace& trace, Symbolizer& symbolizer, EventIndex e) {
  const EventKind kind = trace.kind[e];
  std::string text = "#" + std::to_string(trace.Origin(e)) + " " + ThreadLabel(trace, trace.thread[e]) + " " +
                     std::string(EventKindName(kind));
  if (kind == EventKind::kFork || kind == EventKind::kJoin) {
    text += " " + ThreadLabel(trace, static_cast<ThreadId>(trace.addr[e]));
  } else if (trace.addr[e] != 0) {
    if (auto name = symbolizer.NameOfAddress(trace.addr[e])) {
      text += " " + *name;
    } else {
      char hex[24];
      std::snprintf(hex, sizeof hex, " 0x%llx", static_cast<unsigned long long>(trace.addr[e]));
      text += hex;
    }
  }
  return text + "\n" + symbolizer.Describe(trace.site[e]);
}

struct KeepVertex {
  const std::vector<bool>* keep = nullptr;
  bool operator()(uint32_t v) const { return (*keep)[v]; }
};

}  // namespace

void WritePtgDot(std::ostream& out, const Trace& trace, const std::vector<Finding>& findings,
                 Symbolizer& symbolizer, const PtgDotOptions& options) {
  const PorIndex por(trace);
  const LocationTable locations(trace);
  const Ptg ptg = BuildPtg(trace, por, locations, PtgScope::kAllEvents);
  const size_t n = trace.size_events();

  // Per finding and thread, its events' places in the thread; keep a window around each (and
  // the stretch between two of them when short).
  std::vector<bool> keep(n, false);
  std::map<EventIndex, std::string> marks;  // finding event -> "F1 F3"
  std::string legend = "PTG around " + std::to_string(findings.size()) +
                       (findings.size() == 1 ? " finding" : " findings") +
                       ": solid edges POR (black: program order, blue: thread communication), "
                       "dashed edges TOR; filled: the findings' events\n";
  for (size_t f = 0; f < findings.size(); ++f) {
    const Finding& finding = findings[f];
    const std::string tag = "F" + std::to_string(f + 1);
    legend += tag + ": " + finding.pattern +
              (finding.variant.empty() ? "" : " " + finding.variant) + ", events";
    std::map<ThreadId, std::vector<uint64_t>> places;
    for (EventIndex e : finding.events) {
      if (e >= n) continue;
      legend += " " + std::to_string(trace.Origin(e));
      std::string& mark = marks[e];
      mark += (mark.empty() ? "" : " ") + tag;
      places[trace.thread[e]].push_back(por.LocalIndex(e));
    }
    legend += finding.observed ? " (observed)\n" : " (predicted)\n";
    for (EventIndex e : finding.overtaken) {
      if (e < n) places[trace.thread[e]].push_back(por.LocalIndex(e));
    }
    for (auto& [thread, local] : places) {
      const std::vector<EventIndex>& events = por.ThreadEvents(thread);
      std::sort(local.begin(), local.end());
      for (size_t i = 0; i < local.size(); ++i) {
        uint64_t first = local[i] >= options.context ? local[i] - options.context : 0;
        uint64_t last = local[i] + options.context;
        if (i + 1 < local.size() && local[i + 1] - local[i] <= PtgDotOptions::kMaxSpan)
          last = std::max(last, local[i + 1]);
        for (uint64_t j = first; j <= last && j < events.size(); ++j) keep[events[j]] = true;
      }
    }
  }

  // Vertices are events (PtgScope::kAllEvents), so a vertex's number is its event's.
  const boost::filtered_graph<PtgGraph, boost::keep_all, KeepVertex> picture(
      ptg.graph, boost::keep_all(), KeepVertex{&keep});
  auto vertex_id = boost::make_function_property_map<uint32_t, std::string>(
      [&ptg](uint32_t v) { return "e" + std::to_string(ptg.event_of_vertex[v]); });
  auto write_vertex = [&](std::ostream& dot, uint32_t v) {
    const EventIndex e = ptg.event_of_vertex[v];
    dot << "[label=\"" << DotText(EventLabel(trace, symbolizer, e)) << "\"";
    auto mark = marks.find(e);
    if (mark != marks.end())
      dot << ", style=filled, fillcolor=\"#ffd27f\", xlabel=\"" << mark->second << "\"";
    dot << "]";
  };
  auto write_edge = [&](std::ostream& dot, const auto& edge) {
    switch (ptg.graph[edge].kind) {
      case PtgEdgeKind::kProgramOrder:
        dot << "[style=solid]";
        break;
      case PtgEdgeKind::kSync:
        dot << "[style=solid, color=blue]";
        break;
      case PtgEdgeKind::kTemporal:
        dot << "[style=dashed, color=gray40]";
        break;
    }
  };
  auto write_graph = [&](std::ostream& dot) {
    dot << "label=\"" << DotText(legend, "\\l") << "\";\nlabelloc=t;\nnode [shape=box];\n";
  };
  boost::write_graphviz(out, picture, write_vertex, write_edge, write_graph, vertex_id);
}

}  // namespace pecan
