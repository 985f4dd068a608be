// ContinuationReplays and FlipReplays: the replays hunt's exploring phase runs first.
#include "workflow/hunt_followups.h"

#include "analyzer/critical_section_flips.h"
#include "analyzer/lockset_table.h"
#include "schedgen/clip_builder.h"
#include "trace_format/clip_file.h"

namespace pecan::workflow {

std::vector<ExploreReplay> ContinuationReplays(const std::vector<SummaryFinding>& findings,
                                               size_t max_findings) {
  std::vector<ExploreReplay> replays;
  size_t continued = 0;
  for (const SummaryFinding& finding : findings) {
    if (continued == max_findings) break;
    if (finding.verdict.outcome != "hatched" || !finding.verdict.failure.empty() ||
        finding.clip_path.empty())
      continue;
    ++continued;
    struct Tail {
      const char* race_order;  // nullptr: not a race
      const char* strategy;
      uint64_t seed;
    };
    std::vector<Tail> tails;
    if (finding.pattern == "race") {
      for (const char* order : {"reversed", "recorded"})
        for (const char* strategy : {"seeded", "pct"}) tails.push_back({order, strategy, 1});
    } else {
      tails = {{nullptr, "seeded", 1}, {nullptr, "pct", 1}, {nullptr, "pct", 2}};
    }
    for (const Tail& tail : tails) {
      ExploreReplay replay;
      replay.strategy = "continuation";
      replay.clip = finding.clip_path;
      replay.seed = tail.seed;
      replay.arguments = {"--strategy", tail.strategy, "--seed", std::to_string(tail.seed)};
      replay.chain = "continuation of " + finding.id + ":";
      if (tail.race_order) {
        replay.arguments.insert(replay.arguments.end(), {"--race-order", tail.race_order});
        replay.chain += std::string(" race order ") + tail.race_order + ",";
      }
      replay.chain += std::string(" pecan replay --strategy ") + tail.strategy + " --seed " +
                      std::to_string(tail.seed);
      replays.push_back(std::move(replay));
    }
  }
  return replays;
}

std::vector<ExploreReplay> FlipReplays(const Trace& trace, const PorIndex& por,
                                       const ScheduleGenerator& generator,
                                       const std::string& trace_hash, OutputDirectory& output,
                                       size_t max_flips, size_t* skipped) {
  FlipOptions options;
  options.max_flips = static_cast<uint32_t>(max_flips);
  const std::vector<Finding> flips = FindCriticalSectionFlips(trace, por, options);
  std::vector<ExploreReplay> replays;
  if (skipped) *skipped = 0;
  if (flips.empty()) return replays;
  const LocksetTable locksets(trace);
  for (const Finding& flip : flips) {
    const ClipPlan plan = generator.Generate(flip);
    if (!plan.ok) {
      if (skipped) ++*skipped;
      continue;
    }
    ExploreReplay replay;
    replay.strategy = "flip";
    replay.clip = output.Claim("flips/" + flip.id + ".clip");
    WriteClipFile(replay.clip, ClipFromPlan(trace, locksets, flip, plan, trace_hash));
    replay.chain = "critical-section flip " + flip.id + ": " + flip.reason;
    replays.push_back(std::move(replay));
  }
  return replays;
}

}  // namespace pecan::workflow
