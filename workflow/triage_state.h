// What a triage knows after its work, kept in DIR/triage-state.json beside the summaries so that
// triages of parts of one input list (`pecan triage --shard K/N`, `pecan triage replay --shard`)
// merge into exactly what one triage of the whole list writes (`pecan triage merge`).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "workflow/finding_merge.h"
#include "workflow/finding_summary.h"

namespace pecan::workflow {

inline constexpr const char* kTriageStateFile = "triage-state.json";

struct TriageState {
  // The whole input list this triage is part of: its length and InputListDigest.
  size_t total_traces = 0;
  std::string inputs_digest;
  std::string patterns = "all";  // --patterns and --regions: parts of one triage share them
  std::string regions = "locks";
  std::string suppressions;                 // SuppressionsDigest of --suppressions; empty: none
  std::vector<std::string> replay_command;  // the program after --replay --; empty: no replays
  std::map<size_t, SummaryTrace> traces;    // the traces triaged, by position in the input list
  FindingMerger findings;

  // Joins `other` in: the traces of both, their findings merged. Throws PecanError naming
  // `other_name` when the two are not parts of one triage (other inputs, patterns, regions or
  // replayed program).
  void Merge(TriageState other, const std::string& other_name);
};

// Writes DIR/triage-state.json. `results` are findings.Results() in their order (key order),
// as written to DIR: each one's clip in DIR/clips/ID.clip and, when replayed, its log in
// DIR/replays/ID.log and any failure clip in DIR/failures/ID.clip.
void WriteTriageState(const std::string& path, const TriageState& state,
                      const std::vector<TriagedFinding>& results);

// Reads what WriteTriageState wrote in `dir`, clips included. A verdict's failure clip and a
// replay's log are named by their path in `dir`, to be copied. Throws PecanError("<what>: ...")
// naming the directory and what is missing or malformed.
TriageState ReadTriageState(const std::string& dir, const std::string& what);

}  // namespace pecan::workflow
