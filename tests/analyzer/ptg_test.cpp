// The PTG: its solid edges generate exactly PorIndex's order (checked with Boost's BFS on
// random traces), its dashed edges link consecutive cross-thread accesses, and the compact
// form keeps POR among its vertices.
#include <catch2/catch.hpp>

#include <boost/graph/topological_sort.hpp>
#include <boost/range/iterator_range.hpp>

#include "analyzer/analysis_context.h"
#include "analyzer/ptg.h"
#include "std_trace.h"
#include "tests/support/random_trace_generator.h"

using namespace pecan;

TEST_CASE("PTG: edges of PECAN Figure 1", "[ptg]") {
  const Trace trace = testing::StdTrace(R"(T0|fork(T1)|1
T1|w(y)|5
T0|w(y)|2
T0|r(x)|3
T1|r(y)|6
T1|w(x)|7
)");
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
