// RaceFuzzer's RaceSet for `pecan fuzz --strategy racefuzzer`: the racing statement pairs of a
// report (analyze's or hunt's report.json) or of the analysis of a first recorded run, and for
// each the start clip that names its two statements to the replay runtime.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/finding.h"
#include "analyzer/symbolizer.h"
#include "proto/clip.pb.h"
#include "trace_format/error.h"
#include "trace_format/trace.h"

namespace pecan::workflow {

// One racing pair of statements (sites), with the race finding that showed it.
struct RaceTarget {
  std::string id;        // the finding's id
  EventIndex first = 0;  // its two accesses, in the trace
  EventIndex second = 0;
  std::string where;  // "fig2.c:20 / fig2.c:30"
};

// The pairs of the race findings, one per unordered pair of sites (R-W and W-R of the same two
// statements are one pair), in the findings' order.
std::vector<RaceTarget> RaceTargetsOf(const Trace& trace, const std::vector<Finding>& findings);

// The race findings of a report.json (pecan analyze --format json, or hunt's), and the trace it
// was made from: the report's "trace" as written, or beside the report.
std::vector<Finding> RaceFindingsOfReport(const std::string& report_path, std::string* trace_path);

// `start` (the first event of the program) naming the target's two statements as its finding:
// the replay runtime finds them by module and offset (ReplaySchedule::finding_sites).
proto::Clip RaceStartClip(proto::Clip start, const Trace& trace, const RaceTarget& target);

}  // namespace pecan::workflow
