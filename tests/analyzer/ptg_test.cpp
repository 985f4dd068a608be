// The PTG: its solid edges generate exactly PorIndex's order (checked with Boost's BFS on
// random traces), its dashed edges link consecutive cross-thread accesses, and the compact
// form keeps POR among its vertices. Its DOT picture around findings parses back (Boost's
// read_graphviz) with the expected edges.
#include <catch2/catch.hpp>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/topological_sort.hpp>
#include <boost/range/iterator_range.hpp>
#include <map>
#include <set>
#include <sstream>

#include "analyzer/analysis.h"
#include "analyzer/analysis_context.h"
#include "analyzer/ptg.h"
#include "analyzer/symbolizer.h"
#include "std_trace.h"
#include "tests/support/random_trace_generator.h"

using namespace pecan;

TEST_CASE("PTG: edges of PECAN Figure 1", "[ptg]") {
  const Trace trace = testing::StdTrace(testing::kPecanFigure1);
  const PorIndex por(trace);
  const LocationTable locations(trace);
  const Ptg ptg = BuildPtg(trace, por, locations, PtgScope::kAllEvents);
  CHECK(num_vertices(ptg.graph) == 6);
  std::vector<std::tuple<EventIndex, EventIndex, PtgEdgeKind>> edges;
  for (auto e : boost::make_iterator_range(boost::edges(ptg.graph))) {
    edges.emplace_back(ptg.event_of_vertex[source(e, ptg.graph)],
                       ptg.event_of_vertex[target(e, ptg.graph)], ptg.graph[e].kind);
  }
  using K = PtgEdgeKind;
  CHECK(edges ==
        std::vector<std::tuple<EventIndex, EventIndex, PtgEdgeKind>>{{0, 1, K::kSync},
                                                                     {0, 2, K::kProgramOrder},
                                                                     {1, 2, K::kTemporal},
                                                                     {1, 4, K::kProgramOrder},
                                                                     {2, 3, K::kProgramOrder},
                                                                     {2, 4, K::kTemporal},
                                                                     {3, 5, K::kTemporal},
                                                                     {4, 5, K::kProgramOrder}});
  // The graph is acyclic (edges follow trace order): Boost's topological sort succeeds.
  std::vector<uint32_t> order;
  boost::topological_sort(ptg.graph, std::back_inserter(order));
  CHECK(order.size() == 6);
}

TEST_CASE("PTG: solid reachability equals PorIndex::Ordered on random traces", "[ptg]") {
  test::RandomTraceOptions options;
  options.atomics = true;
  options.thread_begin_end = true;
  const test::RandomTraceGenerator generator(options);
  int compared = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const Trace trace = generator.Generate(seed);
    const PorIndex por(trace);
    const LocationTable locations(trace);
    const Ptg full = BuildPtg(trace, por, locations, PtgScope::kAllEvents);
    const Ptg compact = BuildPtg(trace, por, locations, PtgScope::kCompact);
    CHECK(num_vertices(compact.graph) <= num_vertices(full.graph));
    for (EventIndex a = 0; a < trace.size_events(); ++a) {
      for (EventIndex b = 0; b < trace.size_events(); ++b) {
        INFO("seed " << seed << " a " << a << " b " << b);
        REQUIRE(full.SolidPath(a, b) == por.Ordered(a, b));
        if (compact.VertexOf(a) && compact.VertexOf(b)) {
          REQUIRE(compact.SolidPath(a, b) == por.Ordered(a, b));
        }
        ++compared;
      }
    }
  }
  CHECK(compared > 10000);
}

TEST_CASE("PTG picture: PECAN Figure 1's findings as DOT with POR solid and TOR dashed", "[ptg]") {
  const Trace trace = testing::StdTrace(testing::kPecanFigure1);
  const AnalysisResult result = Analyze(trace, AnalysisOptions{});
  REQUIRE(result.findings.size() == 3);  // (2,5) and (2,6) on y, (3,7) on x
  Symbolizer symbolizer(trace);
  std::ostringstream out;
  WritePtgDot(out, trace, result.findings, symbolizer);
  const std::string dot = out.str();
  INFO(dot);

  // Read it back as a graph with its attributes.
  struct Node {
    std::string id, label, style, xlabel;
  };
  struct Arc {
    std::string style, color;
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, Node, Arc>;
  Graph graph;
  boost::dynamic_properties properties(boost::ignore_other_properties);
  properties.property("node_id", get(&Node::id, graph));
  properties.property("label", get(&Node::label, graph));
  properties.property("style", get(&Node::style, graph));
  properties.property("xlabel", get(&Node::xlabel, graph));
  properties.property("style", get(&Arc::style, graph));
  properties.property("color", get(&Arc::color, graph));
  REQUIRE(boost::read_graphviz(dot, graph, properties, "node_id"));

  // Every event of this small trace is near a finding, so the picture is the whole PTG.
  REQUIRE(num_vertices(graph) == 6);
  std::map<std::string, const Node*> nodes;
  for (auto v : boost::make_iterator_range(vertices(graph))) nodes[graph[v].id] = &graph[v];
  CHECK(nodes.count("e0") == 1);
  CHECK_THAT(nodes["e1"]->label, Catch::Contains("#1 T1 write y"));
  CHECK_THAT(nodes["e0"]->label, Catch::Contains("#0 T0 fork T1"));
  // The findings' events are filled and numbered; the fork is not part of any.
  CHECK(nodes["e0"]->style.empty());
  for (const char* id : {"e1", "e2", "e3", "e4", "e5"}) {
    INFO(id);
    CHECK(nodes[id]->style == "filled");
    CHECK_THAT(nodes[id]->xlabel, Catch::StartsWith("F"));
  }
  CHECK_THAT(nodes["e2"]->xlabel, Catch::Contains("F1") && Catch::Contains("F2"));  // two races

  // The edges of test "PTG: edges of PECAN Figure 1", with their line styles.
  std::set<std::tuple<std::string, std::string, std::string>> edges;
  for (auto e : boost::make_iterator_range(boost::edges(graph))) {
    edges.emplace(graph[source(e, graph)].id, graph[target(e, graph)].id,
                  graph[e].style + (graph[e].color == "blue" ? " sync" : ""));
  }
  CHECK(edges ==
        std::set<std::tuple<std::string, std::string, std::string>>{{"e0", "e1", "solid sync"},
                                                                    {"e0", "e2", "solid"},
                                                                    {"e1", "e2", "dashed"},
                                                                    {"e1", "e4", "solid"},
                                                                    {"e2", "e3", "solid"},
                                                                    {"e2", "e4", "dashed"},
                                                                    {"e3", "e5", "dashed"},
                                                                    {"e4", "e5", "solid"}});
}

TEST_CASE("PTG picture: only the events around the findings", "[ptg]") {
  // A long prefix of T0's private work: the picture keeps two events of context, not all.
  std::string text = "T0|fork(T1)|1\n";
  for (int i = 0; i < 40; ++i) text += "T0|w(p" + std::to_string(i) + ")|2\n";
  text += "T0|w(x)|3\nT0|r(q)|4\nT0|r(q)|4\nT0|r(q)|4\nT1|w(x)|5\n";
  const Trace trace = testing::StdTrace(text);
  AnalysisOptions options;
  options.patterns = "race";
  const AnalysisResult result = Analyze(trace, options);
  REQUIRE(result.findings.size() == 1);
  Symbolizer symbolizer(trace);
  std::ostringstream out;
  WritePtgDot(out, trace, result.findings, symbolizer);
  const std::string dot = out.str();
  INFO(dot);
  // T0's write of x (event 41) with two events either side, and T1's write (event 45), T1's only
  // event: not the fork or T0's other writes.
  for (const char* kept : {"e39[", "e40[", "e41[", "e42[", "e43[", "e45["}) {
    CHECK_THAT(dot, Catch::Contains(kept));
  }
  for (const char* left_out : {"e0[", "e38[", "e44["}) {
    CHECK_THAT(dot, !Catch::Contains(left_out));
  }
  CHECK_THAT(dot, Catch::Contains("e41->e45 [style=dashed"));
}
