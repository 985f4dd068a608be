// A user pattern declared `adjacent` (analyzer/PATTERNS.md) gets what the built-in race gets: a
// clip whose anomaly events run back to back, and a validator that refuses a schedule where they
// do not. Adjacency shapes the generator cannot build are refused with a reason.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "analyzer/analysis.h"
#include "analyzer/por_index.h"
#include "schedgen/schedule_generator.h"
#include "schedgen/schedule_validator.h"
#include "std_trace.h"

namespace pecan {
namespace {

using test::StdTrace;
using Steps = std::vector<EventIndex>;

// T0 writes x, y, z; T1 reads x after all of them. Recorded, the write of x and the read are
// three steps apart.
const char* kTrace =
    "T0|fork(T1)|1\n"
    "T1|begin|2\n"
    "T0|w(x)|3\n"
    "T0|w(y)|4\n"
    "T0|w(z)|5\n"
    "T1|r(x)|6\n";

// Runs the analysis with `pattern_text` as the only pattern file.
std::vector<Finding> FindWith(const Trace& trace, const std::string& pattern_text) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pecan-adjacent-" + std::to_string(::getpid()) + ".txt"))
                               .string();
  std::ofstream(path) << pattern_text;
  AnalysisOptions options;
  options.patterns = path;
  std::vector<Finding> findings = Analyze(trace, options).findings;
  std::filesystem::remove(path);
  return findings;
}

TEST_CASE("a user pattern declared adjacent gets a clip with its events back to back",
          "[schedgen][clip][adjacent]") {
  const Trace trace = StdTrace(kTrace);
  const PorIndex por(trace);
  const std::vector<Finding> findings = FindWith(trace,
                                                 "pattern write-then-read {\n"
                                                 "  T: t1 t2; SV: s s; AR: u1 u2; AT: w r;\n"
                                                 "  adjacent;\n"
                                                 "}\n");
  REQUIRE(findings.size() == 1);
  const Finding& finding = findings[0];
  CHECK(finding.pattern == "write-then-read");
  CHECK(finding.adjacent);
  REQUIRE(finding.events == Steps{2, 5});

  const ClipPlan plan = ScheduleGenerator(trace, por).Generate(finding);
  INFO(plan.reason);
  REQUIRE(plan.ok);
  REQUIRE(plan.anomaly_steps.size() == 2);
  CHECK(plan.anomaly_steps[1] == plan.anomaly_steps[0] + 1);
  CHECK(plan.steps == Steps{0, 1, 2, 5});

  // The recorded order has the events in the pattern's order, but three steps apart.
  const ScheduleValidator validator(trace, por);
  const ValidationResult recorded = validator.Check({0, 1, 2, 3, 4, 5}, PatternOrderOf(finding));
  CHECK_FALSE(recorded.ok);
  CHECK_THAT(recorded.reason, Catch::Contains("not adjacent") && Catch::Contains("2 step(s)"));
  CHECK(validator.Check(plan.steps, PatternOrderOf(finding)).ok);
}

TEST_CASE("the same user pattern without adjacent keeps the recorded order", "[schedgen][clip]") {
  const Trace trace = StdTrace(kTrace);
  const PorIndex por(trace);
  const std::vector<Finding> findings =
      FindWith(trace, "pattern write-then-read { T: t1 t2; SV: s s; AR: u1 u2; AT: w r; }\n");
  REQUIRE(findings.size() == 1);
  CHECK_FALSE(findings[0].adjacent);
  const ClipPlan plan = ScheduleGenerator(trace, por).Generate(findings[0]);
  REQUIRE(plan.ok);
  CHECK(plan.steps == Steps{0, 1, 2, 3, 4, 5});
  CHECK(ScheduleValidator(trace, por).Check(plan.steps, PatternOrderOf(findings[0])).ok);
}

TEST_CASE("adjacency the generator cannot build is refused with a reason", "[schedgen][clip]") {
  const Trace trace = StdTrace(
      "T0|fork(T1)|1\n"
      "T0|w(x)|2\n"
      "T1|r(x)|3\n"
      "T0|w(x)|4\n");
  const PorIndex por(trace);
  Finding three;
  three.id = "three-adjacent";
  three.pattern = "three";
  three.adjacent = true;
  three.events = {1, 2, 3};
  const ClipPlan plan = ScheduleGenerator(trace, por).Generate(three);
  CHECK_FALSE(plan.ok);
  CHECK_THAT(plan.reason, Catch::Contains("more than two events"));
  // Had it been built, the validator demands every pair back to back.
  const ScheduleValidator validator(trace, por);
  CHECK(validator.Check({0, 1, 2, 3}, PatternOrder{{1, 2, 3}, true}).ok);
  const ValidationResult gap = validator.Check({0, 1, 2, 3}, PatternOrder{{1, 3}, true});
  CHECK_FALSE(gap.ok);
  CHECK_THAT(gap.reason, Catch::Contains("events 1 and 2 are not adjacent"));
}

}  // namespace
}  // namespace pecan
