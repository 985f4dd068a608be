// Exhaustive search over the feasible schedules of a small trace (see brute_force_oracle.h).
#include "tests/support/brute_force_oracle.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_set>

namespace pecan::test {
namespace {

char Letter(EventKind kind) {
  return IsWriteAccess(kind) ? 'W' : 'R';
}

bool IsAtomicityTriple(const std::string& letters) {
  return letters == "RWR" || letters == "WWR" || letters == "WRW" || letters == "RWW";
}
bool IsSingleLocationAsv(const std::string& letters) {
  return letters == "RWW" || letters == "RWR" || letters == "WRW" || letters == "WWR" ||
         letters == "WWW";
}
bool IsTwoLocationAsv(const std::string& letters) {
  return letters == "WWWW" || letters == "WRRW" || letters == "RWWR";
}

// Per-thread positions packed into one number (mixed radix), for the visited sets.
class StateEncoder {
 public:
  explicit StateEncoder(const OracleModel& model) {
    uint64_t product = 1;
    for (ThreadId t = 0; t < model.thread_count(); ++t) {
      multipliers_.push_back(product);
      uint64_t radix = model.ThreadEvents(t).size() + 1;
      if (product > std::numeric_limits<uint64_t>::max() / radix)
        throw std::invalid_argument("oracle: trace too large to enumerate");
      product *= radix;
    }
  }
  uint64_t Key(const std::vector<uint32_t>& positions) const {
    uint64_t key = 0;
    for (size_t t = 0; t < positions.size(); ++t) key += positions[t] * multipliers_[t];
    return key;
  }

 private:
  std::vector<uint64_t> multipliers_;
};

// Depth-first search for a schedule that runs the pattern's events in the pattern's order.
// A state is determined by the positions alone: every explored state has executed exactly a
// prefix of the pattern, so the progress is implied.
class OrderSearch {
 public:
  OrderSearch(const OracleModel& model, const std::vector<EventIndex>& pattern, bool adjacent,
              uint64_t max_states)
      : model_(model),
        encoder_(model),
        pattern_(pattern),
        adjacent_(adjacent),
        max_states_(max_states) {}

  std::optional<std::vector<EventIndex>> Run() {
    std::vector<uint32_t> positions(model_.thread_count(), 0);
    if (Dfs(positions, 0)) return path_;
    return std::nullopt;
  }

 private:
  int PatternPosition(EventIndex e) const {
    for (size_t q = 0; q < pattern_.size(); ++q)
      if (pattern_[q] == e) return static_cast<int>(q);
    return -1;
  }

  bool Dfs(std::vector<uint32_t>& positions, size_t progress) {
    if (progress == pattern_.size()) return true;
    if (!visited_.insert(encoder_.Key(positions)).second) return false;
    if (visited_.size() > max_states_) throw std::length_error("oracle: state limit exceeded");
    for (ThreadId t = 0; t < model_.thread_count(); ++t) {
      const auto& events = model_.ThreadEvents(t);
      if (positions[t] == events.size()) continue;
      EventIndex e = events[positions[t]];
      int q = PatternPosition(e);
      if (q >= 0 && static_cast<size_t>(q) != progress) continue;
      if (adjacent_ && progress == 1 && q != 1) continue;
      if (!model_.Enabled(positions, e)) continue;
      ++positions[t];
      path_.push_back(e);
      if (Dfs(positions, progress + (q >= 0 ? 1 : 0))) return true;
      path_.pop_back();
      --positions[t];
    }
    return false;
  }

  const OracleModel& model_;
  StateEncoder encoder_;
  const std::vector<EventIndex>& pattern_;
  bool adjacent_;
  uint64_t max_states_;
  std::unordered_set<uint64_t> visited_;
  std::vector<EventIndex> path_;
};

}  // namespace

BruteForceOracle::BruteForceOracle(const Trace& trace, OracleOptions options)
    : trace_(trace), options_(options), model_(trace) {}

bool BruteForceOracle::IsData(EventIndex e) const {
  EventKind kind = trace_.kind[e];
  return IsPlainAccess(kind) || (options_.atomics_are_data && IsAtomicAccess(kind));
}

std::vector<OracleAnomaly> BruteForceOracle::Candidates() const {
  std::vector<OracleAnomaly> candidates;
  const EventIndex n = trace_.size_events();
  auto letter = [&](EventIndex e) { return Letter(trace_.kind[e]); };

  // Races: every conflicting pair from different threads.
  for (EventIndex a = 0; a < n; ++a) {
    if (!IsData(a)) continue;
    for (EventIndex b = a + 1; b < n; ++b) {
      if (!IsData(b) || trace_.thread[a] == trace_.thread[b] || trace_.addr[a] != trace_.addr[b])
        continue;
      if (!IsWriteAccess(trace_.kind[a]) && !IsWriteAccess(trace_.kind[b])) continue;
      if (IsAtomicAccess(trace_.kind[a]) && IsAtomicAccess(trace_.kind[b])) continue;
      candidates.push_back({"race", std::string{letter(a)} + "-" + letter(b), {a, b}});
    }
  }

  // Data accesses of each thread, in program order.
  std::vector<std::vector<EventIndex>> accesses(model_.thread_count());
  for (EventIndex e = 0; e < n; ++e)
    if (IsData(e)) accesses[trace_.thread[e]].push_back(e);

  // One address: consecutive accesses (i, j) of one thread in one region, k from another.
  for (ThreadId t = 0; t < model_.thread_count(); ++t) {
    const auto& mine = accesses[t];
    for (size_t x = 0; x < mine.size(); ++x) {
      EventIndex i = mine[x];
      uint32_t unit = model_.UnitOf(i);
      if (!model_.IsRegion(unit)) continue;
      EventIndex j = n;
      for (size_t y = x + 1; y < mine.size(); ++y) {
        if (trace_.addr[mine[y]] == trace_.addr[i]) {
          j = mine[y];
          break;
        }
      }
      if (j == n || model_.UnitOf(j) != unit) continue;
      for (EventIndex k = 0; k < n; ++k) {
        if (!IsData(k) || trace_.thread[k] == t || trace_.addr[k] != trace_.addr[i]) continue;
        std::string letters{letter(i), letter(k), letter(j)};
        if (IsAtomicityTriple(letters))
          candidates.push_back({"atomicity",
                                std::string{letters[0]} + "-" + letters[1] + "-" + letters[2],
                                {i, k, j}});
        if (IsSingleLocationAsv(letters))
          candidates.push_back(
              {"asv", std::string{letters[0]} + " " + letters[1] + "' " + letters[2], {i, k, j}});
      }
    }
  }

  // Two addresses: e1, e4 in region u; e2, e3 in region u' of another thread.
  for (ThreadId t = 0; t < model_.thread_count(); ++t) {
    const auto& mine = accesses[t];
    for (size_t x = 0; x < mine.size(); ++x) {
      for (size_t w = x + 1; w < mine.size(); ++w) {
        EventIndex e1 = mine[x], e4 = mine[w];
        uint32_t unit = model_.UnitOf(e1);
        if (!model_.IsRegion(unit) || model_.UnitOf(e4) != unit) continue;
        uint64_t l1 = trace_.addr[e1], l2 = trace_.addr[e4];
        if (l1 == l2) continue;
        for (ThreadId u = 0; u < model_.thread_count(); ++u) {
          if (u == t) continue;
          const auto& theirs = accesses[u];
          for (size_t y = 0; y < theirs.size(); ++y) {
            for (size_t z = y + 1; z < theirs.size(); ++z) {
              EventIndex e2 = theirs[y], e3 = theirs[z];
              if (!model_.IsRegion(model_.UnitOf(e2)) || model_.UnitOf(e3) != model_.UnitOf(e2))
                continue;
              bool straight = trace_.addr[e2] == l1 && trace_.addr[e3] == l2;
              bool crossed = trace_.addr[e2] == l2 && trace_.addr[e3] == l1;
              if (!straight && !crossed) continue;
              std::string letters{letter(e1), letter(e2), letter(e3), letter(e4)};
              if (!IsTwoLocationAsv(letters)) continue;
              std::string first = straight ? "(l1)" : "(l2)";
              std::string second = straight ? "(l2)" : "(l1)";
              std::string variant = std::string{letters[0]} + "(l1) " + letters[1] + "'" + first +
                                    " " + letters[2] + "'" + second + " " + letters[3] + "(l2)";
              candidates.push_back({"asv", variant, {e1, e2, e3, e4}});
            }
          }
        }
      }
    }
  }
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

std::optional<std::vector<EventIndex>> BruteForceOracle::SearchOrder(
    const std::vector<EventIndex>& pattern, bool adjacent) const {
  return OrderSearch(model_, pattern, adjacent, options_.max_states).Run();
}

std::optional<std::vector<EventIndex>> BruteForceOracle::Witness(
    const OracleAnomaly& anomaly) const {
  if (anomaly.pattern == "race") {
    if (auto schedule = SearchOrder(anomaly.events, true)) return schedule;
    std::vector<EventIndex> reversed(anomaly.events.rbegin(), anomaly.events.rend());
    return SearchOrder(reversed, true);
  }
  return SearchOrder(anomaly.events, false);
}

const std::vector<OracleAnomaly>& BruteForceOracle::Anomalies() const {
  if (!anomalies_) {
    std::vector<OracleAnomaly> found;
    for (OracleAnomaly& candidate : Candidates())
      if (Witness(candidate)) found.push_back(std::move(candidate));
    anomalies_ = std::move(found);
  }
  return *anomalies_;
}

bool BruteForceOracle::Exhibits(const std::vector<EventIndex>& schedule,
                                const OracleAnomaly& anomaly) {
  if (anomaly.pattern == "race") {
    if (anomaly.events.size() != 2) return false;
    for (size_t p = 0; p + 1 < schedule.size(); ++p) {
      if ((schedule[p] == anomaly.events[0] && schedule[p + 1] == anomaly.events[1]) ||
          (schedule[p] == anomaly.events[1] && schedule[p + 1] == anomaly.events[0]))
        return true;
    }
    return false;
  }
  size_t next = 0;
  for (EventIndex e : schedule) {
    if (next < anomaly.events.size() && e == anomaly.events[next]) {
      ++next;
    } else if (std::find(anomaly.events.begin(), anomaly.events.end(), e) != anomaly.events.end()) {
      return false;  // a pattern event out of order
    }
  }
  return next == anomaly.events.size();
}

bool BruteForceOracle::ObservedInTrace(const OracleAnomaly& anomaly) const {
  std::vector<EventIndex> recorded(trace_.size_events());
  for (EventIndex i = 0; i < recorded.size(); ++i) recorded[i] = i;
  return Exhibits(recorded, anomaly);
}

bool BruteForceOracle::IsFeasible(const std::vector<EventIndex>& schedule, bool complete,
                                  std::string* why) const {
  auto fail = [&](size_t step, const std::string& reason) {
    if (why) *why = "step " + std::to_string(step) + ": " + reason;
    return false;
  };
  std::vector<uint32_t> positions(model_.thread_count(), 0);
  for (size_t step = 0; step < schedule.size(); ++step) {
    EventIndex e = schedule[step];
    if (e >= trace_.size_events())
      return fail(step, "event " + std::to_string(e) + " not in trace");
    ThreadId t = trace_.thread[e];
    const auto& events = model_.ThreadEvents(t);
    if (positions[t] >= events.size() || events[positions[t]] != e)
      return fail(step, "event " + std::to_string(e) + " is not thread T" + std::to_string(t) +
                            "'s next event (program order, or repeated)");
    for (EventIndex p : model_.CrossPredecessors(e))
      if (positions[trace_.thread[p]] <= model_.LocalIndex(p))
        return fail(step, "event " + std::to_string(e) + " runs before its POR predecessor " +
                              std::to_string(p));
    if (!model_.Enabled(positions, e))
      return fail(step, "event " + std::to_string(e) + " acquires a lock another thread holds");
    ++positions[t];
  }
  if (complete) {
    for (ThreadId t = 0; t < model_.thread_count(); ++t)
      if (positions[t] != model_.ThreadEvents(t).size())
        return fail(schedule.size(), "thread T" + std::to_string(t) + " did not finish");
  }
  return true;
}

uint64_t BruteForceOracle::ForEachSchedule(
    const std::function<bool(const std::vector<EventIndex>&)>& visit, uint64_t limit,
    bool include_stuck) const {
  std::vector<uint32_t> positions(model_.thread_count(), 0);
  std::vector<EventIndex> path;
  uint64_t visited = 0;
  bool stop = false;
  std::function<void()> dfs = [&] {
    bool moved = false;
    bool finished = true;
    for (ThreadId t = 0; t < model_.thread_count() && !stop; ++t) {
      const auto& events = model_.ThreadEvents(t);
      if (positions[t] == events.size()) continue;
      finished = false;
      EventIndex e = events[positions[t]];
      if (!model_.Enabled(positions, e)) continue;
      moved = true;
      ++positions[t];
      path.push_back(e);
      dfs();
      path.pop_back();
      --positions[t];
    }
    if (moved || stop || (!finished && !include_stuck)) return;
    ++visited;
    if (!visit(path) || visited >= limit) stop = true;
  };
  dfs();
  return visited;
}

uint64_t BruteForceOracle::ReachableStates() const {
  StateEncoder encoder(model_);
  std::unordered_set<uint64_t> seen;
  std::vector<uint32_t> positions(model_.thread_count(), 0);
  std::function<void()> dfs = [&] {
    if (!seen.insert(encoder.Key(positions)).second) return;
    if (seen.size() > options_.max_states) throw std::length_error("oracle: state limit exceeded");
    for (ThreadId t = 0; t < model_.thread_count(); ++t) {
      const auto& events = model_.ThreadEvents(t);
      if (positions[t] == events.size() || !model_.Enabled(positions, events[positions[t]]))
        continue;
      ++positions[t];
      dfs();
      --positions[t];
    }
  };
  dfs();
  return seen.size();
}

OracleAnomaly ToOracleAnomaly(const Finding& finding) {
  OracleAnomaly anomaly{finding.pattern, finding.variant, finding.events};
  if (anomaly.pattern == "race") std::sort(anomaly.events.begin(), anomaly.events.end());
  return anomaly;
}

bool SameAnomaly(const OracleAnomaly& anomaly, const Finding& finding) {
  OracleAnomaly other = ToOracleAnomaly(finding);
  std::vector<EventIndex> mine = anomaly.events;
  if (anomaly.pattern == "race") std::sort(mine.begin(), mine.end());
  return anomaly.pattern == other.pattern && mine == other.events;
}

std::string DescribeAnomaly(const OracleAnomaly& anomaly) {
  std::ostringstream out;
  out << anomaly.pattern << " " << anomaly.variant << " [";
  for (size_t i = 0; i < anomaly.events.size(); ++i) out << (i ? " " : "") << anomaly.events[i];
  out << "]";
  return out.str();
}

}  // namespace pecan::test
