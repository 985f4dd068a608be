// The hand-written fixture shared by the report tests.
#include "report_fixture.h"

#include <sstream>

#include "analyzer/report_json.h"
#include "analyzer/report_sarif.h"
#include "analyzer/report_text.h"
#include "analyzer/symbolizer.h"
#include "trace_format/std_format.h"

namespace pecan::test {

const char kFixtureStd[] =
    "T0|fork(T1)|1\n"
    "T0|acq(m)|2\n"
    "T0|r(counter)|3\n"
    "T0|w(counter)|4\n"
    "T0|rel(m)|5\n"
    "T1|w(counter)|6\n"
    "T0|join(T1)|7\n";

Trace FixtureTrace() {
  std::istringstream in(kFixtureStd);
  return ImportStd(in, "fixture.std");
}

AnalysisResult FixtureResult() {
  AnalysisResult result;
  Finding race;
  race.id = "race-00000001";
  race.pattern = "race";
  race.variant = "W-W";
  race.observed = true;
  race.adjacent = true;
  race.events = {3, 5};
  race.reason = "no common lock and no happens-before order between the accesses";
  Finding atomicity;
  atomicity.id = "atomicity-00000002";
  atomicity.pattern = "atomicity";
  atomicity.variant = "R-W-W";
  atomicity.observed = false;
  atomicity.events = {2, 5, 3};
  atomicity.overtaken = {3};
  atomicity.reason = "T1's write #5 can run just before T0's write #3";
  atomicity.witnesses = 3;
  result.findings = {race, atomicity};
  result.stats.events = 7;
  result.stats.shared_locations = 1;
  result.stats.candidates = 5;
  result.stats.seconds_total = 0.25;
  result.stats.seconds_by_family = {{"race", 0.1}, {"atomicity", 0.15}};
  return result;
}

std::string TextReport(const Trace& trace, const AnalysisResult& result) {
  Symbolizer symbolizer(trace);
  std::ostringstream out;
  WriteTextReport(out, trace, result, symbolizer);
  return out.str();
}

std::string JsonReport(const Trace& trace, const AnalysisResult& result,
                       const std::string& trace_path) {
  Symbolizer symbolizer(trace);
  std::ostringstream out;
  WriteJsonReport(out, trace, result, symbolizer, ReportOrigin{trace_path, "00112233aabbccdd"});
  return out.str();
}

std::string SarifReport(const Trace& trace, const AnalysisResult& result,
                        const std::string& trace_path) {
  Symbolizer symbolizer(trace);
  std::ostringstream out;
  WriteSarifReport(out, trace, result, symbolizer, ReportOrigin{trace_path, "00112233aabbccdd"});
  return out.str();
}

}  // namespace pecan::test
