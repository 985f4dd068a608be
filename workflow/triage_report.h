// What `pecan triage` writes in its output directory and prints, from a TriageState: the best
// clip of each distinct finding, summary.json, summary.sarif, summary.html, triage-state.json
// and the text report. One writer for a whole triage, a shard's part and a merge of parts, so a
// merge writes exactly what one triage of the same traces writes.
#pragma once

#include <string>
#include <vector>

#include "workflow/finding_merge.h"
#include "workflow/output_directory.h"
#include "workflow/triage_state.h"

namespace pecan::workflow {

// What triage writes in DIR. A previous triage's files there are removed first; anyone else's
// refuse the triage before it starts (workflow/output_directory.h).
extern const std::vector<std::string> kTriageFiles;

struct TriageReportSettings {
  std::string command = "triage";  // for messages: "triage", "triage merge", "triage replay"
  std::string shard;               // "K/N" when this is one shard's part; empty otherwise
  std::string source_root;         // --source-root as given (empty: the working directory)
};

// Whether `finding`'s clip was recorded from `command`'s program, so it can replay with it (a
// corpus may hold several programs' traces).
bool ReplaysWith(const TriagedFinding& finding, const std::vector<std::string>& command);

// Writes each finding's best clip to DIR/clips/ID.clip and copies the failure clip and log of any
// replay verdict that came from another directory (a part being merged) to DIR/failures and
// DIR/replays. Returns the findings, in key order, with their paths and replay commands set.
std::vector<TriagedFinding> WriteTriageClips(const TriageState& state, OutputDirectory& output);

// Writes summary.json, summary.sarif, summary.html and (last) triage-state.json for `state` and
// `results` (WriteTriageClips's, with verdicts), prints the text report, and returns the exit
// status: 0 done; 1 a replay confirmed a finding or made the program fail; 2 every trace damaged
// or a replay could not run. A shard's part always returns 0 once written: its verdicts count
// when the parts are merged (and a job array's dependent merge runs only after status 0).
int WriteTriageSummaries(const TriageState& state, const std::vector<TriagedFinding>& results,
                         OutputDirectory& output, const TriageReportSettings& settings);

}  // namespace pecan::workflow
