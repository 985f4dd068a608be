// The workflow commands' view of their results: findings merged across traces (or from one
// trace, for hunt) with their best clip and replay verdict, and what happened to each trace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workflow/swimlane_svg.h"

namespace pecan::workflow {

// `value` in lower-case hex, zero-padded to `digits`.
std::string HexString(uint64_t value, int digits = 16);

// 64-bit FNV-1a: a short, stable digest for ids and file names (not a security measure).
uint64_t StableDigest(const std::string& text);

struct SummarySite {
  std::string function;  // empty when unknown
  std::string file;      // empty when unknown
  uint32_t line = 0;     // 0 when unknown
  std::string text;      // "file:line (function)" or "module+0x..."
};

struct SummaryEvent {
  uint32_t thread = 0;
  std::string thread_name;  // "T1"
  std::string kind;         // "read", "write", ...
  SummarySite site;
  std::string variable;  // the variable's name where the symbol tables know it
  // The calls open at the event, innermost first (the function it runs in, then its callers),
  // when the trace has function events; each the entered function's own site.
  std::vector<SummarySite> stack;
  SummarySite thread_created_at;  // where its thread was created; empty for the main thread
};

// The outcome of replaying a finding's clip.
struct SummaryVerdict {
  // "hatched", "deadlocked" (a deadlock clip's cycle blocked: failure is "deadlock"), "exposed"
  // (the replay failed before the clip was done: a real failure, not the predicted anomaly),
  // "infeasible", "error", or "" (not replayed)
  std::string outcome;
  // The replay showed the prediction: its anomaly formed, or its deadlock did.
  bool confirmed() const { return outcome == "hatched" || outcome == "deadlocked"; }
  // hatched: what followed ("" or "crashed", "assertion", "exit", "deadlock", "timeout");
  // exposed: how the program failed
  std::string failure;
  std::string failure_message;
  std::string failure_thread;  // the thread that failed ("T1"), when known
  std::string failure_site;    // where: "abba.c:13 (forward)", when known
  std::string failure_file;    // the site's source file and line, when known
  uint32_t failure_line = 0;
  std::string failure_clip;  // the clip of the failing replay: replays the failure every time
  std::string divergence;    // where the replay left the clip, if it did
  uint64_t events = 0;       // events the replay ran one at a time
  int signal = 0;
  int exit_status = 0;
  std::string reason;
  double seconds = 0;
  // --strategy racefuzzer: the real races the replay brought about (pecan replay --json's
  // "races") and how many in all.
  nlohmann::json races = nlohmann::json::array();
  uint64_t races_total = 0;
  // Turns the watchdog took from a holder blocked outside pecan's view: a timing-dependent
  // choice, so a run with any may not repeat exactly from its seed.
  uint64_t idle_handovers = 0;
  // Choices of a next thread made while another had not settled (pecan replay --json's
  // "unsettled_choices"): timing-dependent too.
  uint64_t unsettled_choices = 0;
};

struct SummaryFinding {
  std::string key;      // pattern | variant | site tuple: what merging compares
  std::string id;       // short, stable, file-name safe
  std::string pattern;  // "race", "atomicity", "asv", ...
  std::string variant;
  std::string reason;
  bool observed = false;
  std::vector<SummaryEvent> events;  // in the pattern's order (from the trace of the best clip)
  std::vector<std::string> traces;   // every trace that shows it
  uint64_t witnesses = 0;            // candidate matches, summed over the traces
  // A race whose two accesses weak causal precedence leaves unordered in a recorded trace
  // (analyzer/wcp_races.h): no critical sections that conflict have to be reordered to show it,
  // so hunt replays these first. Sound for the trace's first such race; for the others very
  // likely, not proved (synchronization through plain variables, a spin on a flag, is invisible
  // to it), and replay still decides.
  bool sound = false;

  // The best (shortest) clip among the traces, if any could be generated.
  std::string clip_path;   // relative to the output directory
  std::string clip_trace;  // the trace it was generated from
  uint64_t clip_steps = 0;
  std::string clip_error;  // why no clip could be generated
  SwimlanePicture picture;

  SummaryVerdict verdict;
  std::string replay_command;  // how to replay the clip by hand
};

struct SummaryTrace {
  std::string path;
  // "ok", "truncated" (analyzed what was complete), "damaged" (skipped), "out of memory"
  // (skipped: the analysis passed --max-memory even when run alone)
  std::string status;
  std::string error;   // for damaged traces
  std::vector<std::string> warnings;
  uint64_t events = 0;
  uint64_t findings = 0;
  double seconds = 0;
};

// Findings whose replay made the program fail first (confirmed, then the failure; or exposed),
// then the other confirmed ones, then the rest; within each, by pattern and merge key.
bool SummaryOrder(const SummaryFinding& a, const SummaryFinding& b);

}  // namespace pecan::workflow
