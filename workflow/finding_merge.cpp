#include "workflow/finding_merge.h"

namespace pecan::workflow {

void FindingMerger::Add(size_t order, TriagedTrace triaged) {
  for (TriagedFinding& finding : triaged.findings) {
    auto [it, fresh] = merged_.try_emplace(finding.summary.key);
    Entry& entry = it->second;
    auto [trace, first] = entry.traces.try_emplace(order, triaged.trace.path, 0);
    trace->second.second += finding.summary.witnesses;
    if (fresh || Better(finding, order, entry)) {
      entry.best = std::move(finding);
      entry.best_order = order;
    }
  }
}

void FindingMerger::Add(const std::string& key, Entry other) {
  auto [it, fresh] = merged_.try_emplace(key);
  Entry& entry = it->second;
  for (auto& [order, trace] : other.traces) entry.traces.try_emplace(order, std::move(trace));
  if (fresh || Better(other.best, other.best_order, entry)) {
    entry.best = std::move(other.best);
    entry.best_order = other.best_order;
  }
}

void FindingMerger::Merge(FindingMerger other) {
  for (auto& [key, entry] : other.merged_) Add(key, std::move(entry));
}

bool FindingMerger::SetVerdict(const std::string& key, const SummaryVerdict& verdict,
                               const std::string& replay_log) {
  auto it = merged_.find(key);
  if (it == merged_.end()) return false;
  it->second.best.summary.verdict = verdict;
  it->second.best.replay_log = replay_log;
  return true;
}

std::vector<TriagedFinding> FindingMerger::Results() const {
  std::vector<TriagedFinding> results;
  std::set<std::string> ids;
  for (const auto& [key, entry] : merged_) {
    TriagedFinding finding = entry.best;
    if (!ids.insert(finding.summary.id).second) {
      finding.summary.id += "-" + HexString(StableDigest(key) & 0xffffffffu, 8);
      ids.insert(finding.summary.id);
    }
    finding.summary.traces.clear();
    finding.summary.witnesses = 0;
    for (const auto& [order, trace] : entry.traces) {
      finding.summary.traces.push_back(trace.first);
      finding.summary.witnesses += trace.second;
    }
    results.push_back(std::move(finding));
  }
  return results;
}

bool FindingMerger::Better(const TriagedFinding& candidate, size_t order, const Entry& entry) {
  const bool has = candidate.clip != nullptr, had = entry.best.clip != nullptr;
  if (has != had) return has;
  if (has && candidate.summary.clip_steps != entry.best.summary.clip_steps)
    return candidate.summary.clip_steps < entry.best.summary.clip_steps;
  if (order != entry.best_order) return order < entry.best_order;
  return VerdictRank(candidate.summary.verdict) < VerdictRank(entry.best.summary.verdict);
}

std::pair<int, std::string> FindingMerger::VerdictRank(const SummaryVerdict& verdict) {
  int rank = 4;
  if (verdict.outcome.empty())
    rank = 5;
  else if (verdict.outcome == "exposed" || (verdict.confirmed() && !verdict.failure.empty()))
    rank = 0;
  else if (verdict.confirmed())
    rank = 1;
  else if (verdict.outcome == "infeasible")
    rank = 3;
  return {rank, verdict.outcome + "|" + verdict.failure + "|" + verdict.reason};
}

}  // namespace pecan::workflow
