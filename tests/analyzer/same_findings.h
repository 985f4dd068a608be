// CheckSameFindings: two analyses of one trace found the same thing, field by field — for the
// tests that hold a second engine (the streaming one) to Analyze. Catch2 assertions: call it
// inside a test case.
#pragma once

#include <catch2/catch.hpp>
#include <vector>

#include "analyzer/finding.h"

namespace pecan::test {

inline void CheckSameFindings(const std::vector<Finding>& got,
                              const std::vector<Finding>& expected) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const Finding& a = got[i];
    const Finding& b = expected[i];
    INFO("finding " << i);
    CHECK(a.id == b.id);
    CHECK(a.pattern == b.pattern);
    CHECK(a.variant == b.variant);
    CHECK(a.observed == b.observed);
    CHECK(a.adjacent == b.adjacent);
    CHECK(a.events == b.events);
    CHECK(a.overtaken == b.overtaken);
    CHECK(a.reason == b.reason);
    CHECK(a.witnesses == b.witnesses);
  }
}

}  // namespace pecan::test
