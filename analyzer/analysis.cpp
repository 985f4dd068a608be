// Analyze(): builds the indices once, runs every selected pattern through the same engine, and
// merges, names and times the findings.
#include "analyzer/analysis.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>

#include "analyzer/analysis_context.h"
#include "analyzer/builtin_patterns.h"
#include "analyzer/finding_id.h"
#include "analyzer/pattern_search.h"
#include "trace_format/progress.h"

namespace pecan {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A single-location atomic-set violation with the same sites and access kinds as an atomicity
// violation is the same anomaly; when both families run it is reported once, as atomicity.
void DropAsvDuplicatesOfAtomicity(const Trace& trace, std::vector<Finding>* findings) {
  auto signature = [&](const Finding& f) {
    std::vector<uint64_t> s;
    for (EventIndex e : f.events) {
      s.push_back(trace.site[e]);
      s.push_back(IsWriteAccess(trace.kind[e]) ? 1 : 0);
    }
    return s;
  };
  std::set<std::vector<uint64_t>> atomicity;
  for (const Finding& f : *findings) {
    if (f.pattern == "atomicity") atomicity.insert(signature(f));
  }
  if (atomicity.empty()) return;
  std::erase_if(*findings, [&](const Finding& f) {
    return f.pattern == "asv" && f.events.size() == 3 && atomicity.count(signature(f)) > 0;
  });
}

}  // namespace

AnalysisResult Analyze(const Trace& trace, const AnalysisOptions& options) {
  const Clock::time_point start = Clock::now();
  const std::vector<Pattern> patterns = SelectPatterns(options.patterns);
  AnalysisResult result;
  result.stats.events = trace.size_events();

  std::unique_ptr<ProgressReporter> progress;
  if (options.progress) progress = std::make_unique<ProgressReporter>("analyzing", patterns.size() + 1);

  const Clock::time_point index_start = Clock::now();
  const AnalysisContext context(trace, options.regions);
  result.stats.shared_locations = context.locations.Count();
  result.stats.seconds_by_family.emplace_back("index", SecondsSince(index_start));
  if (progress) progress->Update(1);

  std::map<std::string, size_t> family_slot;
  for (size_t i = 0; i < patterns.size(); ++i) {
    const Pattern& pattern = patterns[i];
    const Clock::time_point pattern_start = Clock::now();
    PatternSearchStats stats;
    std::vector<Finding> found = SearchPattern(context, pattern, &stats);
    result.stats.candidates += stats.candidates;
    for (Finding& f : found) result.findings.push_back(std::move(f));
    auto [slot, inserted] = family_slot.try_emplace(pattern.name, result.stats.seconds_by_family.size());
    if (inserted) result.stats.seconds_by_family.emplace_back(pattern.name, 0.0);
    result.stats.seconds_by_family[slot->second].second += SecondsSince(pattern_start);
    if (progress) progress->Update(i + 2);
  }
  if (progress) progress->Finish();

  DropAsvDuplicatesOfAtomicity(trace, &result.findings);

  // Ids: a hash of pattern, variant and sites; a collision inside one result gets a suffix.
  std::map<std::string, int> used;
  for (Finding& f : result.findings) {
    std::string id = MakeFindingId(trace, f);
    const int n = used[id]++;
    if (n > 0) id += "-" + std::to_string(n + 1);
    f.id = std::move(id);
  }
  result.stats.seconds_total = SecondsSince(start);
  return result;
}

}  // namespace pecan
