// PlanReplays: WCP's races marked, variants on the same sites merged, sound ones first.
#include "workflow/hunt_ranking.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "analyzer/wcp_races.h"

namespace pecan::workflow {
namespace {

// The cheaper witness: its events end earlier in the trace, then span fewer events.
bool Cheaper(const Finding& a, const Finding& b) {
  const auto [a_first, a_last] = std::minmax_element(a.events.begin(), a.events.end());
  const auto [b_first, b_last] = std::minmax_element(b.events.begin(), b.events.end());
  if (*a_last != *b_last) return *a_last < *b_last;
  return *a_last - *a_first < *b_last - *b_first;
}

}  // namespace

ReplayPlan PlanReplays(const Trace& trace, const PorIndex& por,
                       const std::vector<Finding>& findings) {
  ReplayPlan plan;
  plan.sound.assign(findings.size(), false);
  std::set<std::pair<SiteId, SiteId>> sound_sites;
  for (const WcpRace& race : FindWcpRaces(trace, por)) {
    const SiteId a = trace.site[race.first], b = trace.site[race.second];
    sound_sites.insert({std::min(a, b), std::max(a, b)});
  }
  for (size_t i = 0; i < findings.size(); i++) {
    const Finding& finding = findings[i];
    if (finding.pattern != "race" || finding.events.size() != 2) continue;
    const SiteId a = trace.site[finding.events[0]], b = trace.site[finding.events[1]];
    plan.sound[i] = sound_sites.count({std::min(a, b), std::max(a, b)}) > 0;
  }
  // One representative per pattern and set of sites (the sites sorted: a race's R-W and W-R on
  // the same two lines are the same set); a sound variant is preferred to an unsound one.
  using Key = std::pair<std::string, std::vector<SiteId>>;
  std::vector<Key> keys(findings.size());
  for (size_t i = 0; i < findings.size(); i++) {
    keys[i].first = findings[i].pattern;
    for (EventIndex e : findings[i].events) keys[i].second.push_back(trace.site[e]);
    std::sort(keys[i].second.begin(), keys[i].second.end());
  }
  std::map<Key, size_t> chosen;
  for (size_t i = 0; i < findings.size(); i++) {
    auto [it, inserted] = chosen.try_emplace(keys[i], i);
    if (inserted) continue;
    const size_t kept = it->second;
    const bool better = plan.sound[i] != plan.sound[kept]
                            ? plan.sound[i]
                            : Cheaper(findings[i], findings[kept]);
    if (better) it->second = i;
  }
  for (const auto& [key, kept] : chosen) plan.order.push_back(kept);
  plan.represented_by.resize(findings.size());
  for (size_t i = 0; i < findings.size(); i++) plan.represented_by[i] = chosen.at(keys[i]);
  std::sort(plan.order.begin(), plan.order.end());
  std::stable_partition(plan.order.begin(), plan.order.end(),
                        [&](size_t i) { return plan.sound[i]; });
  return plan;
}

}  // namespace pecan::workflow
