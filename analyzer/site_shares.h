// Hunt's per-site bound (AnalysisOptions::max_per_site) applied to a streaming search's site
// tuples once it is done: SearchPatternGroup leaves out a tuple new to it when one of its sites
// already takes part in max_per_site tuples it kept, in the order it meets them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace_format/trace.h"

namespace pecan {

// `tuples` in the order the search meets them; `sites(t)` is a tuple's sites (a std::array),
// `count(t)` its matches. Keeps the tuples within the bound, in order, and adds the others'
// matches to `*capped`.
template <typename Tuple, typename Sites, typename Count>
void KeepWithinSiteShares(std::vector<Tuple>* tuples, uint32_t max_per_site, Sites sites,
                          Count count, uint64_t* capped) {
  std::unordered_map<SiteId, uint32_t> shares;
  size_t kept = 0;
  for (Tuple& tuple : *tuples) {
    auto distinct = sites(tuple);
    std::sort(distinct.begin(), distinct.end());
    const auto end = std::unique(distinct.begin(), distinct.end());
    const bool room = std::all_of(distinct.begin(), end, [&](SiteId site) {
      auto it = shares.find(site);
      return it == shares.end() || it->second < max_per_site;
    });
    if (!room) {
      *capped += count(tuple);
      continue;
    }
    for (auto site = distinct.begin(); site != end; ++site) ++shares[*site];
    if (&(*tuples)[kept] != &tuple) (*tuples)[kept] = std::move(tuple);
    ++kept;
  }
  tuples->resize(kept);
}

}  // namespace pecan
