// A small STD trace with known findings (written by hand, not by the analyzer) that the report
// tests print, plus helpers to run them through each format.
#pragma once

#include <string>

#include "analyzer/analysis.h"
#include "trace_format/trace.h"

namespace pecan::test {

// T0 forks T1; T0 reads and writes 'counter' holding m; T1 writes it with no lock; T0 joins.
//   event: 0 fork(T1)  1 acq(m)  2 r(counter)  3 w(counter)  4 rel(m)  5 w(counter)  6 join(T1)
//   loc:   1           2         3             4             5         6             7
extern const char kFixtureStd[];
Trace FixtureTrace();
// A race (3, 5) observed, and an atomicity violation (2, 5, 3) predicted with overtaken {3}.
AnalysisResult FixtureResult();

std::string TextReport(const Trace& trace, const AnalysisResult& result);
std::string JsonReport(const Trace& trace, const AnalysisResult& result,
                       const std::string& trace_path = "fixture.std");
std::string SarifReport(const Trace& trace, const AnalysisResult& result,
                        const std::string& trace_path = "fixture.std");

}  // namespace pecan::test
