// The pattern engine: binds pattern positions one by one from the location, thread and region
// indices (backtracking), then checks the order in the trace (observed) or by mutation.
#include "analyzer/pattern_search.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "analyzer/reorder_feasibility.h"

namespace pecan {
namespace {

constexpr uint32_t kUnbound = ~0u;
constexpr uint64_t kNoGroup = ~uint64_t{0};

bool AccessMatches(AccessMatch m, EventKind k) {
  switch (m) {
    case AccessMatch::kRead:
      return k == EventKind::kRead || k == EventKind::kAtomicLoad;
    case AccessMatch::kWrite:
      return IsWriteAccess(k);
    case AccessMatch::kAny:
      return IsAccess(k);
  }
  return false;
}

struct SiteTupleHash {
  size_t operator()(const std::vector<SiteId>& sites) const {
    uint64_t h = 0xcbf29ce484222325ull;
    for (SiteId s : sites) h = (h ^ s) * 0x100000001b3ull;
    return static_cast<size_t>(h);
  }
};

// The best witness found so far for one site tuple.
struct Candidate {
  std::vector<EventIndex> events;
  std::vector<Move> moves;
  bool observed = false;
  uint64_t last = 0;    // latest event: the schedule must run up to here
  uint64_t window = 0;  // latest - earliest
  uint32_t witnesses = 0;

  bool BetterThan(const Candidate& o) const {
    if (observed != o.observed) return observed;
    if (last != o.last) return last < o.last;
    return window < o.window;
  }
};

class Matcher {
 public:
  Matcher(const AnalysisContext& context, const Pattern& pattern, PatternSearchStats* stats)
      : c_(context), p_(pattern), stats_(stats), k_(pattern.size()) {
    Plan();
  }

  std::vector<Finding> Run() {
    if (k_ > 0 && c_.locations.Count() > 0) Bind(0);
    return Collect();
  }

 private:
  struct Unit {
    uint32_t thread_symbol;
    std::vector<uint32_t> positions;  // pattern order
  };

  void Plan() {
    std::vector<uint32_t> thread_uses(p_.thread_count, 0);
    for (uint32_t t : p_.thread) ++thread_uses[t];
    units_.resize(p_.region_count);
    for (uint32_t pos = 0; pos < k_; ++pos) {
      units_[p_.region[pos]].thread_symbol = p_.thread[pos];
      units_[p_.region[pos]].positions.push_back(pos);
    }
    grouped_.resize(k_);
    for (uint32_t pos = 0; pos < k_; ++pos) {
      grouped_[pos] = units_[p_.region[pos]].positions.size() == 1 && thread_uses[p_.thread[pos]] == 1;
    }
    // Anchor: the unit with the most events (ties: the earliest), bound first.
    uint32_t anchor = p_.region[0];
    for (uint32_t u = 0; u < units_.size(); ++u) {
      if (units_[u].positions.size() > units_[anchor].positions.size()) anchor = u;
    }
    for (uint32_t pos : units_[anchor].positions) order_.push_back(pos);
    for (uint32_t pos = 0; pos < k_; ++pos) {
      if (p_.region[pos] != anchor &&
          std::find(order_.begin(), order_.end(), pos) == order_.end()) {
        for (uint32_t q : units_[p_.region[pos]].positions) order_.push_back(q);
      }
    }
    event_.assign(k_, 0);
    group_.assign(k_, kNoGroup);
    bound_.assign(k_, false);
    location_of_variable_.assign(p_.variable_count, kUnbound);
    variable_binds_.assign(p_.variable_count, 0);
    thread_of_symbol_.assign(p_.thread_count, kUnbound);
    thread_binds_.assign(p_.thread_count, 0);
  }

  // ---- binding ----

  void Bind(size_t step) {
    if (step == k_) {
      Complete();
      return;
    }
    const uint32_t pos = order_[step];
    const Unit& unit = units_[p_.region[pos]];
    const uint32_t variable = p_.variable[pos];
    const bool first_of_unit = unit.positions.front() == pos;

    if (!first_of_unit) {
      BindInUnit(step, pos, unit);
      return;
    }
    if (location_of_variable_[variable] != kUnbound) {
      BindOnLocation(step, pos, location_of_variable_[variable]);
      return;
    }
    for (LocationId l = 0; l < c_.locations.Count(); ++l) {
      if (LocationTaken(l, variable)) continue;
      BindOnLocation(step, pos, l);
    }
  }

  bool LocationTaken(LocationId l, uint32_t variable) const {
    for (uint32_t v = 0; v < p_.variable_count; ++v) {
      if (v != variable && location_of_variable_[v] == l) return true;
    }
    return false;
  }

  bool ThreadAllowed(uint32_t symbol, ThreadId t) const {
    if (thread_of_symbol_[symbol] != kUnbound) return thread_of_symbol_[symbol] == t;
    for (uint32_t s = 0; s < p_.thread_count; ++s) {
      if (s != symbol && thread_of_symbol_[s] == t) return false;
    }
    return true;
  }

  // First event of a unit, on location l.
  void BindOnLocation(size_t step, uint32_t pos, LocationId l) {
    const uint32_t symbol = p_.thread[pos];
    if (grouped_[pos]) {
      for (uint64_t g = c_.group_offsets[l]; g < c_.group_offsets[l + 1]; ++g) {
        const AccessGroup& group = c_.groups[g];
        if (!AccessMatches(p_.access[pos], group.kind) || !ThreadAllowed(symbol, group.thread)) {
          continue;
        }
        Push(pos, c_.group_members[group.first_member], g, l);
        Bind(step + 1);
        Pop(pos);
      }
      return;
    }
    const bool needs_region = units_[p_.region[pos]].positions.size() > 1;
    for (uint64_t r = c_.run_offsets[l]; r < c_.run_offsets[l + 1]; ++r) {
      const ThreadRun& run = c_.runs[r];
      if (!ThreadAllowed(symbol, run.thread)) continue;
      for (uint64_t a = run.begin; a < run.end; ++a) {
        const EventIndex e = c_.by_thread[a];
        if (!AccessMatches(p_.access[pos], c_.trace.kind[e])) continue;
        if (needs_region && c_.regions.Of(e) == kNoRegion) continue;
        if (!Consistent(pos, e)) continue;
        Push(pos, e, kNoGroup, l);
        Bind(step + 1);
        Pop(pos);
      }
    }
  }

  // A later event of a unit whose first event is bound: same region, after the unit's previous
  // event. Two events of the unit on one variable with none between them in the unit must be
  // consecutive accesses of the thread to that location.
  void BindInUnit(size_t step, uint32_t pos, const Unit& unit) {
    uint32_t previous = unit.positions.front();
    for (uint32_t q : unit.positions) {
      if (q < pos) previous = q;
    }
    const uint32_t variable = p_.variable[pos];
    std::optional<uint32_t> same_variable;
    for (uint32_t q : unit.positions) {
      if (q < pos && p_.variable[q] == variable) same_variable = q;
    }
    const EventIndex previous_event = event_[previous];
    const RegionId region = c_.regions.Of(previous_event);
    if (same_variable) {
      const EventIndex before = event_[*same_variable];
      const LocationId l = c_.locations.Of(before);
      const ThreadRun* run = c_.RunOf(l, c_.trace.thread[before]);
      const EventIndex* begin = c_.by_thread.data() + run->begin;
      const EventIndex* end = c_.by_thread.data() + run->end;
      const EventIndex* next = std::upper_bound(begin, end, before);
      if (next == end) return;
      const EventIndex e = *next;
      if (e <= previous_event || c_.regions.Of(e) != region) return;
      if (!AccessMatches(p_.access[pos], c_.trace.kind[e]) || !Consistent(pos, e)) return;
      Push(pos, e, kNoGroup, l);
      Bind(step + 1);
      Pop(pos);
      return;
    }
    const EventIndex* begin = c_.region_accesses.data() + c_.region_offsets[region];
    const EventIndex* end = c_.region_accesses.data() + c_.region_offsets[region + 1];
    for (const EventIndex* it = std::upper_bound(begin, end, previous_event); it != end; ++it) {
      const EventIndex e = *it;
      if (!AccessMatches(p_.access[pos], c_.trace.kind[e])) continue;
      const LocationId l = c_.locations.Of(e);
      if (location_of_variable_[variable] != kUnbound) {
        if (location_of_variable_[variable] != l) continue;
      } else if (LocationTaken(l, variable)) {
        continue;
      }
      if (!Consistent(pos, e)) continue;
      Push(pos, e, kNoGroup, l);
      Bind(step + 1);
      Pop(pos);
    }
  }

  // Thread, region and program-order constraints between e at pos and the bound positions.
  bool Consistent(uint32_t pos, EventIndex e) const {
    const ThreadId t = c_.trace.thread[e];
    if (!ThreadAllowed(p_.thread[pos], t)) return false;
    const RegionId region = c_.regions.Of(e);
    for (uint32_t q = 0; q < k_; ++q) {
      if (!bound_[q]) continue;
      if (event_[q] == e) return false;
      if (p_.thread[q] != p_.thread[pos]) continue;
      if ((q < pos) != (event_[q] < e)) return false;  // program order cannot change
      const bool same_unit = p_.region[q] == p_.region[pos];
      const RegionId other = c_.regions.Of(event_[q]);
      if (same_unit && other != region) return false;
      if (!same_unit && region != kNoRegion && other == region) return false;
    }
    return true;
  }

  void Push(uint32_t pos, EventIndex e, uint64_t group, LocationId l) {
    event_[pos] = e;
    group_[pos] = group;
    bound_[pos] = true;
    const uint32_t v = p_.variable[pos];
    if (variable_binds_[v]++ == 0) location_of_variable_[v] = l;
    const uint32_t t = p_.thread[pos];
    if (thread_binds_[t]++ == 0) thread_of_symbol_[t] = c_.trace.thread[e];
  }

  void Pop(uint32_t pos) {
    bound_[pos] = false;
    group_[pos] = kNoGroup;
    const uint32_t v = p_.variable[pos];
    if (--variable_binds_[v] == 0) location_of_variable_[v] = kUnbound;
    const uint32_t t = p_.thread[pos];
    if (--thread_binds_[t] == 0) thread_of_symbol_[t] = kUnbound;
  }

  // ---- a complete match ----

  void Complete() {
    ++stats_->candidates;
    if (p_.some_plain) {
      bool plain = false;
      for (uint32_t pos = 0; pos < k_; ++pos) plain |= IsPlainAccess(c_.trace.kind[event_[pos]]);
      if (!plain) return;
    }
    Candidate candidate;
    if (!ChooseMembers(&candidate)) return;
    if (!Feasible(&candidate)) return;
    candidate.last = *std::max_element(candidate.events.begin(), candidate.events.end());
    candidate.window =
        candidate.last - *std::min_element(candidate.events.begin(), candidate.events.end());

    std::vector<SiteId> sites(k_);
    for (uint32_t pos = 0; pos < k_; ++pos) sites[pos] = c_.trace.site[candidate.events[pos]];
    auto [it, inserted] = best_.try_emplace(std::move(sites), Candidate{});
    Candidate& best = it->second;
    const uint32_t witnesses = best.witnesses + 1;
    if (inserted || candidate.BetterThan(best)) best = std::move(candidate);
    best.witnesses = witnesses;
  }

  const EventIndex* MembersBegin(uint64_t g) const {
    return c_.group_members.data() + c_.groups[g].first_member;
  }
  const EventIndex* MembersEnd(uint64_t g) const {
    return MembersBegin(g) + c_.groups[g].member_count;
  }

  // Picks concrete events for grouped positions (any member passes the same POR and lockset
  // tests; the choice only decides whether the match is observed and how cheap it is).
  bool ChooseMembers(Candidate* out) {
    out->events = event_;
    if (p_.unordered && group_[0] != kNoGroup && group_[1] != kNoGroup) {
      auto adjacent = c_.adjacent_group_pairs.find(AnalysisContext::GroupPairKey(group_[0], group_[1]));
      if (adjacent != c_.adjacent_group_pairs.end()) {
        out->events = {adjacent->second.first, adjacent->second.second};
        out->observed = true;
        return true;
      }
      // The earliest second event that has a first event before it.
      const EventIndex first0 = *MembersBegin(group_[0]);
      const EventIndex* e1 = std::upper_bound(MembersBegin(group_[1]), MembersEnd(group_[1]), first0);
      if (e1 == MembersEnd(group_[1])) return false;
      const EventIndex* e0 = std::lower_bound(MembersBegin(group_[0]), MembersEnd(group_[0]), *e1);
      out->events = {*(e0 - 1), *e1};
      out->observed = false;
      return true;
    }
    // Greedy in pattern order: each grouped position takes its first member after everything
    // before it; if that keeps the pattern order the match is observed.
    std::vector<EventIndex> greedy = event_;
    bool in_order = true;
    EventIndex lower = 0;
    bool have_lower = false;
    for (uint32_t pos = 0; pos < k_ && in_order; ++pos) {
      if (group_[pos] != kNoGroup) {
        const EventIndex* m = have_lower ? std::upper_bound(MembersBegin(group_[pos]),
                                                            MembersEnd(group_[pos]), lower)
                                         : MembersBegin(group_[pos]);
        if (m == MembersEnd(group_[pos])) {
          in_order = false;
          break;
        }
        greedy[pos] = *m;
      }
      if (have_lower && greedy[pos] <= lower) in_order = false;
      lower = greedy[pos];
      have_lower = true;
    }
    if (in_order) {
      out->events = greedy;
      out->observed = true;
      if (p_.adjacent) {
        for (uint32_t pos = 0; pos + 1 < k_; ++pos) {
          if (c_.locations.Of(greedy[pos]) == c_.locations.Of(greedy[pos + 1]) &&
              !c_.TorAdjacent(greedy[pos], greedy[pos + 1])) {
            out->observed = false;
          }
        }
      }
      return true;
    }
    if (p_.unordered) return false;  // the trace order is the pattern order for these
    for (uint32_t pos = 0; pos < k_; ++pos) {
      if (group_[pos] != kNoGroup) out->events[pos] = *MembersBegin(group_[pos]);
    }
    out->observed = false;
    return true;
  }

  bool Feasible(Candidate* candidate) const {
    const std::vector<EventIndex>& e = candidate->events;
    if (p_.adjacent) {
      for (uint32_t pos = 0; pos + 1 < k_; ++pos) {
        if (p_.thread[pos] == p_.thread[pos + 1]) {
          if (c_.por.LocalIndex(e[pos + 1]) != c_.por.LocalIndex(e[pos]) + 1) return false;
        } else if (!Independent(c_, e[pos], e[pos + 1])) {
          return false;
        }
      }
      if (k_ == 2 || candidate->observed) return true;
    }
    if (candidate->observed) return true;
    return CanReorder(c_, e, p_.thread, &candidate->moves);
  }

  // ---- results ----

  std::string Describe(EventIndex e) const {
    const ThreadId t = c_.trace.thread[e];
    const std::string thread =
        t < c_.trace.threads.size() && !c_.trace.threads[t].name.empty()
            ? c_.trace.threads[t].name
            : "T" + std::to_string(t);
    const std::string what = IsWriteAccess(c_.trace.kind[e]) ? "write" : IsReadAccess(c_.trace.kind[e]) ? "read" : std::string(EventKindName(c_.trace.kind[e]));
    return thread + "'s " + what + " #" + std::to_string(e);
  }

  std::string Reason(const Candidate& candidate) const {
    if (p_.adjacent) {
      std::string r = "no common lock and no happens-before order between the accesses";
      if (p_.unordered && candidate.observed) {
        r += "; they also ran back to back in the recorded run";
      } else if (candidate.observed) {
        r += "; the recorded run already shows this order";
      }
      return r;
    }
    if (candidate.observed) return "observed: the events ran in this order in the recorded run";
    std::string r;
    for (const Move& m : candidate.moves) {
      if (!r.empty()) r += "; ";
      r += Describe(m.event) + (m.anchor < m.event ? " can run just before " : " can run just after ") +
           Describe(m.anchor);
    }
    return r + " (no common lock, no happens-before order)";
  }

  std::vector<Finding> Collect() {
    std::vector<Finding> out;
    out.reserve(best_.size());
    for (auto& [sites, candidate] : best_) {
      Finding f;
      f.pattern = p_.name;
      f.variant = p_.variant;
      f.observed = candidate.observed;
      f.events = candidate.events;
      f.reason = Reason(candidate);
      f.witnesses = candidate.witnesses;
      for (const Move& m : candidate.moves) {
        f.overtaken.push_back(m.anchor < m.event ? m.anchor : m.event);
      }
      out.push_back(std::move(f));
    }
    std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
      return a.events < b.events;
    });
    return out;
  }

  const AnalysisContext& c_;
  const Pattern& p_;
  PatternSearchStats* stats_;
  const uint32_t k_;
  std::vector<Unit> units_;
  std::vector<bool> grouped_;
  std::vector<uint32_t> order_;
  std::vector<EventIndex> event_;
  std::vector<uint64_t> group_;
  std::vector<bool> bound_;
  std::vector<uint32_t> location_of_variable_;
  std::vector<uint32_t> variable_binds_;
  std::vector<uint32_t> thread_of_symbol_;
  std::vector<uint32_t> thread_binds_;
  std::unordered_map<std::vector<SiteId>, Candidate, SiteTupleHash> best_;
};

}  // namespace

std::vector<Finding> SearchPattern(const AnalysisContext& context, const Pattern& pattern,
                                   PatternSearchStats* stats) {
  PatternSearchStats local;
  return Matcher(context, pattern, stats ? stats : &local).Run();
}

}  // namespace pecan
