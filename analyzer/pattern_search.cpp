// The pattern engine. The interrupted unit (the first event's region) and every unit sharing a
// thread with another are bound event by event from the location and region indices; every
// other unit is bound a class at a time (AccessClass) and a member is picked by binary search,
// so hot locations cost classes x windows, not accesses x accesses. Races have their own sweep.
#include "analyzer/pattern_search.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "analyzer/flat_hash_map.h"
#include "analyzer/reorder_feasibility.h"

namespace pecan {
namespace {

constexpr uint32_t kUnbound = ~0u;
constexpr size_t kNoSlot = ~size_t{0};
constexpr size_t kMaxGroup = 32;  // patterns per shared enumeration (bits of the match mask)

bool AccessMatches(AccessMatch m, EventKind k) {
  switch (m) {
    case AccessMatch::kRead:
      return k == EventKind::kRead || k == EventKind::kAtomicLoad;
    case AccessMatch::kWrite:
      return IsWriteAccess(k) || k == EventKind::kFree;
    case AccessMatch::kAny:
      return IsAccess(k) || k == EventKind::kFree;
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
    return BetterWitness(observed, last, window, o.observed, o.last, o.window);
  }
};

// A class of a collapsible unit's event tuples (one or two events): same thread, and per event
// the same site, kind and lock addresses. Members (tuples) are sorted by their first event.
struct UnitClass {
  ThreadId thread = 0;
  std::array<EventKind, 2> kinds{};
  std::array<LocksetId, 2> locksets{};
  // Flat, not owned (the context's class members, or the matcher's pair members): member i is
  // members[i*m .. i*m+m), m = events.
  const EventIndex* members = nullptr;
  uint64_t member_count = 0;  // tuples
};

// A collapsible unit's classes on one tuple of locations, bucketed by the lock addresses its
// first event holds, so a window where the interrupted thread always holds an excluding lock
// skips a whole bucket at once.
struct UnitClasses {
  std::vector<UnitClass> classes;
  std::vector<std::pair<LocksetId, std::vector<uint32_t>>> buckets;  // representative lockset
};

// A unit's later event on a location not bound yet is looked for among this many accesses after
// its previous event (BindInUnit, and the pairs of ClassesOf): a two-location pattern in a long
// unit pairs accesses at most this far apart, so its cost is linear in the unit's accesses.
constexpr size_t kMaxUnitScan = 128;

// Windows longer than this are not scanned for the lock prefilter (they rarely exclude).
constexpr uint64_t kPrefilterSlots = 64;
constexpr size_t kPrefilterLocksets = 4;

class Matcher {
 public:
  // All patterns of the group have the same shape (SameShape): they share one enumeration, and
  // a bit mask says which of them the events bound so far still match.
  Matcher(const AnalysisContext& context, const std::vector<const Pattern*>& group,
          PatternSearchStats* stats, uint32_t max_per_site, uint64_t max_steps)
      : c_(context),
        p_(*group[0]),
        group_(group),
        stats_(stats),
        k_(static_cast<uint32_t>(group[0]->size())),
        max_per_site_(max_per_site),
        max_steps_(max_steps),
        masks_(group) {
    mask_ = group.size() >= 32 ? ~0u : (1u << group.size()) - 1;
    best_.resize(group.size());
    Plan();
    PlanLocations();
  }

  uint32_t Mask(uint32_t pos, EventKind kind) const { return masks_.Of(pos, kind); }

  // Steps taken, and whether max_steps stopped the search (then the findings may be partial).
  uint64_t steps() const { return work_; }
  bool stopped() const { return stopped_; }

  std::vector<Finding> Run() {
    if (c_.locations.Count() == 0) return {};
    if (p_.adjacent && p_.unordered && k_ == 2 && p_.variable[0] == p_.variable[1]) {
      SearchRaces();
    } else {
      Bind(0);
    }
    return Collect();
  }

 private:
  struct Unit {
    uint32_t thread_symbol = 0;
    std::vector<uint32_t> positions;  // pattern order
    bool collapsible = false;
  };
  struct Step {
    uint32_t position = 0;     // for event steps
    uint32_t unit = kUnbound;  // for collapsible-unit steps
  };

  void Plan() {
    std::vector<uint32_t> thread_units(p_.thread_count, 0);
    units_.resize(p_.region_count);
    for (uint32_t pos = 0; pos < k_; ++pos) {
      Unit& u = units_[p_.region[pos]];
      if (u.positions.empty()) ++thread_units[p_.thread[pos]];
      u.thread_symbol = p_.thread[pos];
      u.positions.push_back(pos);
    }
    for (Unit& u : units_) {
      u.collapsible = !p_.adjacent && u.thread_symbol != p_.thread[0] &&
                      thread_units[u.thread_symbol] == 1 && u.positions.size() <= 2;
    }
    // The interrupted unit first, then the other event-by-event units, then the classes.
    auto add_unit = [&](uint32_t u) {
      for (uint32_t pos : units_[u].positions) steps_.push_back(Step{pos, kUnbound});
    };
    add_unit(p_.region[0]);
    std::vector<bool> done(units_.size(), false);
    done[p_.region[0]] = true;
    for (uint32_t pos = 0; pos < k_; ++pos) {
      const uint32_t u = p_.region[pos];
      if (!done[u] && !units_[u].collapsible) add_unit(u);
      done[u] = done[u] || !units_[u].collapsible;
    }
    for (uint32_t pos = 0; pos < k_; ++pos) {
      const uint32_t u = p_.region[pos];
      if (!done[u]) steps_.push_back(Step{0, u});
      done[u] = true;
    }
    for (uint32_t q = 0; q < k_; ++q) {
      for (uint32_t r = q + 1; r < k_; ++r) {
        if (p_.variable[q] == p_.variable[r]) same_variable_pairs_.emplace_back(q, r);
      }
    }
    event_.assign(k_, 0);
    region_slot_.assign(k_, kNoSlot);
    bound_.assign(k_, false);
    location_of_variable_.assign(p_.variable_count, kUnbound);
    variable_binds_.assign(p_.variable_count, 0);
    thread_of_symbol_.assign(p_.thread_count, kUnbound);
    thread_binds_.assign(p_.thread_count, 0);
  }

  // Which locations each variable can bind to. The context keeps every location some selected
  // pattern can use; this pattern's variable v needs as many threads as it has thread symbols,
  // and a write (a read) if the events on it that some pattern of the group has are writes.
  void PlanLocations() {
    const size_t count = c_.locations.Count();
    eligible_.assign(count, 0);
    std::vector<uint32_t> threads(p_.variable_count, 0);
    for (uint32_t v = 0; v < p_.variable_count; ++v) {
      std::set<uint32_t> symbols;
      for (uint32_t pos = 0; pos < k_; ++pos) {
        if (p_.variable[pos] == v) symbols.insert(p_.thread[pos]);
      }
      threads[v] = static_cast<uint32_t>(symbols.size());
    }
    std::vector<std::set<std::pair<bool, bool>>> needs(p_.variable_count);  // (write, read)
    for (const Pattern* pattern : group_) {
      std::vector<std::pair<bool, bool>> need(p_.variable_count, {false, false});
      for (uint32_t pos = 0; pos < k_; ++pos) {
        auto& [write, read] = need[p_.variable[pos]];
        write |= pattern->access[pos] == AccessMatch::kWrite;
        read |= pattern->access[pos] == AccessMatch::kRead;
      }
      for (uint32_t v = 0; v < p_.variable_count; ++v) needs[v].insert(need[v]);
    }
    all_eligible_ = true;
    for (LocationId l = 0; l < count; ++l) {
      const LocationInfo& info = c_.locations.Info(l);
      const uint64_t location_threads = c_.run_offsets[l + 1] - c_.run_offsets[l];
      for (uint32_t v = 0; v < p_.variable_count; ++v) {
        const bool fits =
            location_threads >= threads[v] &&
            std::any_of(needs[v].begin(), needs[v].end(), [&](const std::pair<bool, bool>& n) {
              return (!n.first || info.written) && (!n.second || info.read);
            });
        if (fits) eligible_[l] |= static_cast<uint8_t>(1u << v);
        all_eligible_ &= fits;
      }
    }
  }

  bool Eligible(LocationId l, uint32_t variable) const {
    return all_eligible_ || (eligible_[l] >> variable & 1) != 0;
  }

  // ---- event-by-event binding ----

  // One candidate tried. True once max_steps_ is exceeded: every loop of the binding returns,
  // so the search unwinds with the findings recorded so far.
  bool CountStep() {
    if (stopped_) return true;
    if (max_steps_ != 0 && work_ == max_steps_) {
      stopped_ = true;
      return true;
    }
    ++work_;
    return false;
  }

  void Bind(size_t step) {
    if (step == steps_.size()) {
      Complete();
      return;
    }
    if (steps_[step].unit != kUnbound) {
      BindUnitClass(step, steps_[step].unit, 0);
      return;
    }
    const uint32_t pos = steps_[step].position;
    const Unit& unit = units_[p_.region[pos]];
    const uint32_t variable = p_.variable[pos];
    if (unit.positions.front() != pos) {
      BindInUnit(step, pos, unit);
      return;
    }
    if (step == 0 && unit.positions.size() > 1) {
      BindFirstInRegions(step, pos);
      return;
    }
    if (location_of_variable_[variable] != kUnbound) {
      BindOnLocation(step, pos, location_of_variable_[variable]);
      return;
    }
    for (LocationId l = 0; l < c_.locations.Count(); ++l) {
      if (CountStep()) return;
      if (Eligible(l, variable) && !LocationTaken(l, variable)) BindOnLocation(step, pos, l);
    }
  }

  // The first event of a multi-event first unit: only accesses inside regions qualify, so sweep
  // the regions' access lists in order (sequential memory, and the unit's later events are
  // found next to it).
  void BindFirstInRegions(size_t step, uint32_t pos) {
    const EventIndex* accesses = c_.region_accesses.data();
    const LocationId* locations = c_.region_access_locations.data();
    const size_t count = c_.region_accesses.size();
    for (size_t idx = 0; idx < count; ++idx) {
      if (CountStep()) return;
      const EventIndex e = accesses[idx];
      const uint32_t mask = mask_ & Mask(pos, c_.trace.kind[e]);
      if (mask == 0 || !Eligible(locations[idx], p_.variable[pos]) || !Consistent(pos, e)) continue;
      const uint32_t saved = mask_;
      mask_ = mask;
      Push(pos, e, locations[idx]);
      region_slot_[pos] = idx;
      Bind(step + 1);
      region_slot_[pos] = kNoSlot;
      Pop(pos);
      mask_ = saved;
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

  // The first event of a unit, on location l.
  void BindOnLocation(size_t step, uint32_t pos, LocationId l) {
    const uint32_t symbol = p_.thread[pos];
    const bool needs_region = units_[p_.region[pos]].positions.size() > 1;
    for (uint64_t r = c_.run_offsets[l]; r < c_.run_offsets[l + 1]; ++r) {
      const ThreadRun& run = c_.runs[r];
      if (!ThreadAllowed(symbol, run.thread)) continue;
      for (uint64_t a = run.begin; a < run.end; ++a) {
        if (CountStep()) return;
        const EventIndex e = c_.by_thread[a];
        const uint32_t mask = mask_ & Mask(pos, c_.trace.kind[e]);
        if (mask == 0) continue;
        if (needs_region && c_.regions.Of(e) == kNoRegion) continue;
        if (!Consistent(pos, e)) continue;
        const uint32_t saved = mask_;
        mask_ = mask;
        Push(pos, e, l);
        Bind(step + 1);
        Pop(pos);
        mask_ = saved;
      }
    }
  }

  // A later event of a unit whose first event is bound: same region, after the unit's previous
  // event. Two events of the unit on one variable with none on that variable between them in the
  // pattern must be consecutive accesses of the thread to the variable: the region is one
  // stretch of the thread's program, so that is the next access to the location overlapping the
  // earlier event in the region's list, and it must still come after the unit's previous event.
  void BindInUnit(size_t step, uint32_t pos, const Unit& unit) {
    uint32_t previous = unit.positions.front();
    std::optional<uint32_t> same_variable;
    for (uint32_t q : unit.positions) {
      if (q >= pos) continue;
      previous = q;
      if (p_.variable[q] == p_.variable[pos]) same_variable = q;
    }
    const EventIndex previous_event = event_[previous];
    const RegionId region = c_.regions.Of(previous_event);
    const EventIndex* accesses = c_.region_accesses.data();
    const LocationId* locations = c_.region_access_locations.data();
    const size_t region_end = c_.region_offsets[region + 1];
    const uint32_t from = same_variable ? *same_variable : previous;
    size_t start = region_slot_[from];
    if (start == kNoSlot) {
      start = static_cast<size_t>(std::lower_bound(accesses + c_.region_offsets[region],
                                                   accesses + region_end, event_[from]) -
                                  accesses);
    }
    const uint32_t variable = p_.variable[pos];
    // A variable not bound yet may take any later location of the unit: look only at the next
    // kMaxUnitScan accesses, so a long unit (a function call of a whole compression loop under
    // --regions functions) costs a window per event, not the square of its accesses.
    const bool free_location = location_of_variable_[variable] == kUnbound && !same_variable;
    const size_t scan_end =
        free_location ? std::min(region_end, start + 1 + kMaxUnitScan) : region_end;
    if (free_location && scan_end < region_end) ++stats_->windowed;
    for (size_t idx = start + 1; idx < scan_end; ++idx) {
      if (CountStep()) return;
      const LocationId l = locations[idx];
      if (location_of_variable_[variable] != kUnbound) {
        if (location_of_variable_[variable] != l) continue;
      } else if (!Eligible(l, variable) || LocationTaken(l, variable)) {
        continue;
      }
      const EventIndex e = accesses[idx];
      if (same_variable && !c_.OverlapOn(l, event_[*same_variable], e)) continue;
      if (e < previous_event) {
        if (same_variable) return;  // the next access to the location is not after `previous`
        continue;
      }
      const uint32_t mask = mask_ & Mask(pos, c_.trace.kind[e]);
      if (mask != 0 && Consistent(pos, e)) {
        const uint32_t saved = mask_;
        mask_ = mask;
        Push(pos, e, l);
        region_slot_[pos] = idx;
        Bind(step + 1);
        region_slot_[pos] = kNoSlot;
        Pop(pos);
        mask_ = saved;
      }
      if (same_variable) break;
    }
  }

  // Thread, region and program-order constraints between e at pos and the bound positions.
  bool Consistent(uint32_t pos, EventIndex e) const {
    if (!ThreadAllowed(p_.thread[pos], c_.trace.thread[e])) return false;
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

  void Push(uint32_t pos, EventIndex e, LocationId l) {
    event_[pos] = e;
    bound_[pos] = true;
    const uint32_t v = p_.variable[pos];
    if (variable_binds_[v]++ == 0) location_of_variable_[v] = l;
    const uint32_t t = p_.thread[pos];
    if (thread_binds_[t]++ == 0) thread_of_symbol_[t] = c_.trace.thread[e];
  }

  void Pop(uint32_t pos) {
    bound_[pos] = false;
    const uint32_t v = p_.variable[pos];
    if (--variable_binds_[v] == 0) location_of_variable_[v] = kUnbound;
    const uint32_t t = p_.thread[pos];
    if (--thread_binds_[t] == 0) thread_of_symbol_[t] = kUnbound;
  }

  // ---- collapsible units: a class at a time ----

  // Binds the unit's variables (those still free) to locations, then tries each class.
  void BindUnitClass(size_t step, uint32_t unit_index, size_t next_event) {
    const Unit& unit = units_[unit_index];
    if (next_event < unit.positions.size()) {
      const uint32_t variable = p_.variable[unit.positions[next_event]];
      if (location_of_variable_[variable] != kUnbound) {
        BindUnitClass(step, unit_index, next_event + 1);
        return;
      }
      for (LocationId l = 0; l < c_.locations.Count(); ++l) {
        if (CountStep()) return;
        if (!Eligible(l, variable) || LocationTaken(l, variable)) continue;
        location_of_variable_[variable] = l;
        ++variable_binds_[variable];
        BindUnitClass(step, unit_index, next_event + 1);
        --variable_binds_[variable];
        location_of_variable_[variable] = kUnbound;
      }
      return;
    }
    const UnitClasses& all = ClassesOf(unit_index);
    if (all.classes.empty()) return;
    std::array<uint32_t, kPrefilterLocksets> slot_locks;
    const size_t slot_lock_count = WindowLocksets(unit.positions[0], &slot_locks);
    for (const auto& bucket : all.buckets) {
      // Plain locals, not structured bindings: clang before 16 cannot capture those in a lambda.
      const uint32_t locks = c_.locksets.AddressSetOf(bucket.first);
      const std::vector<uint32_t>& members = bucket.second;
      if (slot_lock_count > 0 &&
          std::all_of(slot_locks.begin(), slot_locks.begin() + slot_lock_count, [&](uint32_t held) {
            return c_.locksets.ExclusiveAddressSets(held, locks);
          })) {
        continue;
      }
      for (uint32_t index : members) {
        if (CountStep()) return;
        const UnitClass& cls = all.classes[index];
        if (!ThreadAllowed(unit.thread_symbol, cls.thread)) continue;
        uint32_t mask = mask_;
        for (size_t i = 0; i < unit.positions.size(); ++i)
          mask &= Mask(unit.positions[i], cls.kinds[i]);
        if (mask == 0) continue;
        ++stats_->candidates;
        if (!ResolveClass(unit, cls)) continue;
        const uint32_t saved = mask_;
        mask_ = mask;
        const uint32_t t = unit.thread_symbol;
        if (thread_binds_[t]++ == 0) thread_of_symbol_[t] = cls.thread;
        for (uint32_t pos : unit.positions) bound_[pos] = true;
        Bind(step + 1);
        for (uint32_t pos : unit.positions) bound_[pos] = false;
        if (--thread_binds_[t] == 0) thread_of_symbol_[t] = kUnbound;
        mask_ = saved;
      }
    }
  }

  // The distinct sets of lock addresses (LocksetTable::AddressSetOf) the interrupted thread
  // holds at the slots of position q's window; none (0) when the window is too long to scan, has
  // a slot without locks, or too many sets.
  size_t WindowLocksets(uint32_t q, std::array<uint32_t, kPrefilterLocksets>* out) const {
    const std::vector<EventIndex>& a_events = c_.por.ThreadEvents(c_.trace.thread[event_[0]]);
    const auto [lo, hi] = Window(q, a_events);
    if (lo > hi || hi - lo > kPrefilterSlots) return 0;
    size_t count = 0;
    for (uint64_t slot = lo; slot <= hi; ++slot) {
      const LocksetId lockset =
          slot < a_events.size() ? c_.locksets.Of(a_events[slot]) : kEmptyLockset;
      if (lockset == kEmptyLockset) return 0;
      const uint32_t held = c_.locksets.AddressSetOf(lockset);
      if (std::find(out->begin(), out->begin() + count, held) != out->begin() + count) continue;
      if (count == out->size()) return 0;
      (*out)[count++] = held;
    }
    return count;
  }

  // The classes of a collapsible unit on the currently bound locations. Computed once per
  // unit and first location (for every second location at once) and cached; access types are
  // not filtered here, so the cache serves every pattern of the group.
  const UnitClasses& ClassesOf(uint32_t unit_index) {
    const Unit& unit = units_[unit_index];
    const uint32_t first = unit.positions[0];
    const LocationId l0 = location_of_variable_[p_.variable[first]];
    const bool pair = unit.positions.size() == 2;
    const LocationId l1 =
        pair ? location_of_variable_[p_.variable[unit.positions[1]]] : kNoLocation;
    const uint64_t key = UnitClassKey(unit_index, l0, l1);
    if (const uint32_t* known = unit_class_index_.Find(key)) return unit_class_store_[*known];
    if (!pair) {
      UnitClasses& result = UnitClassesAt(key);
      for (uint64_t ci = c_.class_offsets[l0]; ci < c_.class_offsets[l0 + 1]; ++ci) {
        const AccessClass& ac = c_.classes[ci];
        result.classes.push_back(UnitClass{ac.thread,
                                           {ac.kind, EventKind::kUnspecified},
                                           {ac.lockset, kEmptyLockset},
                                           c_.MembersBegin(ci),
                                           ac.member_count});
      }
      Bucket(&result);
      return result;
    }
    // Two events of one region: enumerate every pair of every region once, for all locations.
    if (!pairs_done_.insert(unit_index).second) {
      static const UnitClasses kNone;
      return kNone;
    }
    const bool same_variable = p_.variable[first] == p_.variable[unit.positions[1]];
    // A pair's class is the pair of its events' access classes (same thread, sites, kinds and
    // lock addresses), so the key is two numbers. Classes are numbered in order of first pair;
    // the pairs are kept in enumeration order with their class, then sorted by class into one
    // flat array (stable: a class's members stay sorted by first event).
    FlatHashMap<uint64_t, uint32_t, U64Hash> class_index;
    std::vector<UnitClass> pair_classes;
    std::vector<uint64_t> class_where;  // each class's location pair (its UnitClassKey)
    struct Pair {
      uint32_t cls;
      EventIndex a, b;
    };
    std::vector<Pair> pairs;
    auto add = [&](EventIndex a, EventIndex b, LocationId la, LocationId lb) {
      const uint32_t ca = c_.class_of[a];
      const uint32_t cb = c_.class_of[b];
      bool fresh = false;
      const uint32_t cls = class_index.FindOrInsert(
          uint64_t{ca} << 32 | cb, static_cast<uint32_t>(pair_classes.size()), &fresh);
      if (fresh) {
        const AccessClass& x = c_.classes[ca];
        const AccessClass& y = c_.classes[cb];
        pair_classes.push_back(
            UnitClass{x.thread, {x.kind, y.kind}, {x.lockset, y.lockset}, nullptr, 0});
        class_where.push_back(UnitClassKey(unit_index, la, lb));
      }
      ++pair_classes[cls].member_count;
      pairs.push_back({cls, a, b});
    };
    const EventIndex* accesses = c_.region_accesses.data();
    const LocationId* locations = c_.region_access_locations.data();
    for (RegionId r = 0; r + 1 < c_.region_offsets.size(); ++r) {
      const size_t begin = c_.region_offsets[r];
      const size_t end = c_.region_offsets[r + 1];
      for (size_t i = begin; i < end; ++i) {
        // Pairs on two locations: within kMaxUnitScan accesses, as BindInUnit looks for them.
        const size_t last = same_variable ? end : std::min(end, i + 1 + kMaxUnitScan);
        if (last < end) ++stats_->windowed;
        for (size_t j = i + 1; j < last; ++j) {
          if (same_variable) {
            // The next access of the region to the same bytes.
            if (locations[j] != locations[i] ||
                !c_.OverlapOn(locations[i], accesses[i], accesses[j]))
              continue;
            add(accesses[i], accesses[j], locations[i], locations[j]);
            break;
          }
          if (locations[j] != locations[i])
            add(accesses[i], accesses[j], locations[i], locations[j]);
        }
      }
    }
    std::vector<EventIndex>& flat = pair_members_.emplace_back(2 * pairs.size());
    std::vector<uint64_t> fill(pair_classes.size());
    for (size_t c = 0, offset = 0; c < pair_classes.size();
         offset += 2 * pair_classes[c].member_count, ++c) {
      fill[c] = offset;
      pair_classes[c].members = flat.data() + offset;
    }
    for (const Pair& p : pairs) {
      flat[fill[p.cls]++] = p.a;
      flat[fill[p.cls]++] = p.b;
    }
    std::vector<Pair>().swap(pairs);
    // Per location pair, its classes in order of first pair.
    for (size_t c = 0; c < pair_classes.size(); ++c)
      UnitClassesAt(class_where[c]).classes.push_back(pair_classes[c]);
    for (size_t c = 0; c < pair_classes.size(); ++c) {
      UnitClasses& classes = UnitClassesAt(class_where[c]);
      if (classes.buckets.empty()) Bucket(&classes);
    }
    if (const uint32_t* found = unit_class_index_.Find(key)) return unit_class_store_[*found];
    static const UnitClasses kNone;
    return kNone;
  }

  static uint64_t UnitClassKey(uint32_t unit, LocationId l0, LocationId l1) {
    return uint64_t{unit} << 58 ^ uint64_t { l0 } << 29 ^ uint64_t { l1 & 0x1fffffffu };
  }

  void Bucket(UnitClasses* result) const {
    std::map<uint32_t, size_t> bucket_of_key;
    for (uint32_t i = 0; i < result->classes.size(); ++i) {
      const LocksetId lockset = result->classes[i].locksets[0];
      const uint32_t key = c_.locksets.AddressSetOf(lockset);
      auto [it, fresh] = bucket_of_key.try_emplace(key, result->buckets.size());
      if (fresh) result->buckets.emplace_back(lockset, std::vector<uint32_t>{});
      result->buckets[it->second].second.push_back(i);
    }
  }

  // Slot window in A's program for the event at pattern position q: slots lo..hi, slot s meaning
  // "just before A's event s" (s == size: after A's last event).
  std::pair<uint64_t, uint64_t> Window(uint32_t q, const std::vector<EventIndex>& a_events) const {
    uint64_t lo = 0;
    uint64_t hi = a_events.size();
    for (uint32_t p = 0; p < k_; ++p) {
      if (p_.thread[p] != p_.thread[0] || !bound_[p]) continue;
      const uint64_t local = c_.por.LocalIndex(event_[p]);
      if (p < q) lo = std::max(lo, local + 1);
      if (p > q) hi = std::min(hi, local);
    }
    return {lo, hi};
  }

  // Picks a member of `cls` that can take its place in the pattern, preferring one already in
  // place, and writes it into event_. Members are sorted by first event, and for a fixed slot
  // "x ->POR e" holds for a suffix of them and "e ->POR x_prev" for a prefix: the members that
  // fit a slot form one range, found by binary search.
  bool ResolveClass(const Unit& unit, const UnitClass& cls) {
    // Position 0's unit is bound first, so the interrupted thread is known.
    const std::vector<EventIndex>& a_events = c_.por.ThreadEvents(c_.trace.thread[event_[0]]);
    const size_t m = unit.positions.size();
    const size_t count = cls.member_count;
    auto event = [&](size_t member, size_t i) { return cls.members[member * m + i]; };
    std::array<std::pair<uint64_t, uint64_t>, 2> windows;
    for (size_t i = 0; i < m; ++i) windows[i] = Window(unit.positions[i], a_events);
    if (windows[0].first > windows[0].second) return false;
    auto in_place = [&](size_t member) {
      for (size_t i = 0; i < m; ++i) {
        const auto [lo, hi] = windows[i];
        if (lo > 0 && event(member, i) < a_events[lo - 1]) return false;
        if (hi < a_events.size() && event(member, i) > a_events[hi]) return false;
      }
      return true;
    };
    // First index in [0, count) where pred turns false (pred true on a prefix).
    auto partition = [&](auto pred) {
      size_t lo = 0;
      size_t hi = count;
      while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (pred(mid)) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    };
    const uint64_t lo = windows[0].first;  // not a structured binding: the lambdas capture it
    const uint64_t hi = windows[0].second;
    // In place: members starting after A's event before the window, while they start inside it.
    {
      const size_t first =
          lo == 0 ? 0 : partition([&](size_t i) { return event(i, 0) < a_events[lo - 1]; });
      for (size_t i = first; i < count; ++i) {
        if (hi < a_events.size() && event(i, 0) > a_events[hi]) break;
        if (in_place(i)) {
          Assign(unit, cls, i);
          return true;
        }
        if (m == 1) break;  // the one member that can be in place
      }
    }
    // A pair's second event takes the earliest free slot at or after the first event's where
    // A's events no longer reach it (not a ->POR e: a suffix of slots); it must not reach A's
    // event before that slot (e ->POR a: a prefix of slots, which holds at the first event's slot
    // since the first event precedes it in its thread).
    std::vector<uint64_t> next_free;  // slot -> first slot >= it where the locks allow e1
    if (m == 2) {
      const auto [lo2, hi2] = windows[1];
      if (lo2 > hi2) return false;
      next_free.assign(hi2 - lo2 + 2, kNoSlot);
      for (uint64_t s2 = hi2 + 1; s2-- > lo2;) {
        const bool excluded =
            s2 < a_events.size() &&
            c_.locksets.ExclusiveSets(c_.locksets.Of(a_events[s2]), cls.locksets[1]);
        next_free[s2 - lo2] = excluded ? next_free[s2 - lo2 + 1] : s2;
      }
    }
    auto second_fits = [&](size_t member, uint64_t s) {
      const auto [lo2, hi2] = windows[1];
      const EventIndex e1 = event(member, 1);
      // First slot in [max(s, lo2), hi2] whose A event does not reach e1, or hi2 + 1.
      uint64_t low = std::max(s, lo2);
      uint64_t high = hi2 + 1;
      while (low < high) {
        const uint64_t mid = low + (high - low) / 2;
        if (mid < a_events.size() && c_.por.Ordered(a_events[mid], e1)) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      if (low > hi2) return false;
      const uint64_t s2 = next_free[low - lo2];
      return s2 != kNoSlot && (s2 == 0 || !c_.por.Ordered(e1, a_events[s2 - 1]));
    };
    for (uint64_t s = hi + 1; s-- > lo;) {
      if (s < a_events.size() &&
          c_.locksets.ExclusiveSets(c_.locksets.Of(a_events[s]), cls.locksets[0])) {
        continue;
      }
      if (m == 2) {
        const uint64_t from = std::max(s, windows[1].first);
        if (from > windows[1].second || next_free[from - windows[1].first] == kNoSlot) continue;
      }
      // Members not ordered after A's event s: a prefix. Not ordered before s-1: a suffix.
      const size_t end =
          s < a_events.size()
              ? partition([&](size_t i) { return !c_.por.Ordered(a_events[s], event(i, 0)); })
              : count;
      const size_t begin =
          s > 0 ? partition([&](size_t i) { return c_.por.Ordered(event(i, 0), a_events[s - 1]); })
                : 0;
      if (begin >= end) continue;
      if (m == 1) {
        // Nearest to the window: the latest member before it, else the earliest after it.
        const EventIndex reference = a_events[std::min<uint64_t>(s, a_events.size() - 1)];
        Assign(unit, cls, event(end - 1, 0) < reference ? end - 1 : begin);
        return true;
      }
      for (size_t i = begin; i < end; ++i) {
        if (second_fits(i, s)) {
          Assign(unit, cls, i);
          return true;
        }
      }
    }
    return false;
  }

  void Assign(const Unit& unit, const UnitClass& cls, size_t member) {
    const size_t m = unit.positions.size();
    for (size_t i = 0; i < m; ++i) event_[unit.positions[i]] = cls.members[member * m + i];
  }

  // ---- a complete match ----

  void Complete() {
    if (steps_.back().unit == kUnbound) ++stats_->candidates;
    // Events on one variable must touch common bytes, not just the same (merged) location.
    for (const auto& [q, r] : same_variable_pairs_) {
      if (!c_.OverlapOn(location_of_variable_[p_.variable[q]], event_[q], event_[r])) return;
    }
    if (p_.some_plain) {
      bool plain = false;
      for (uint32_t pos = 0; pos < k_; ++pos) plain |= IsPlainAccess(c_.trace.kind[event_[pos]]);
      if (!plain) return;
    }
    Candidate candidate;
    candidate.events = event_;
    candidate.observed = std::is_sorted(event_.begin(), event_.end());
    // Unordered: the match in trace order is the one kept (it is bound too).
    if (p_.unordered && !candidate.observed) return;
    if (p_.adjacent) {
      for (uint32_t pos = 0; pos + 1 < k_; ++pos) {
        if (p_.thread[pos] == p_.thread[pos + 1]) {
          if (c_.por.LocalIndex(event_[pos + 1]) != c_.por.LocalIndex(event_[pos]) + 1) return;
        } else if (!Independent(c_, event_[pos], event_[pos + 1])) {
          return;
        }
        if (c_.locations.Of(event_[pos]) == c_.locations.Of(event_[pos + 1]) &&
            !c_.TorAdjacent(event_[pos], event_[pos + 1])) {
          candidate.observed = false;
        }
      }
    }
    if (!candidate.observed && !(p_.adjacent && k_ == 2) &&
        !CanReorder(c_, event_, p_.thread, &candidate.moves)) {
      return;
    }
    RecordAll(std::move(candidate), mask_);
  }

  void RecordAll(Candidate candidate, uint32_t mask) {
    for (uint32_t bit = 0; mask != 0; ++bit, mask >>= 1) {
      if (mask & 1) Record(mask >> 1 ? candidate : std::move(candidate), bit);
    }
  }

  void Record(Candidate candidate, uint32_t pattern) {
    candidate.last = *std::max_element(candidate.events.begin(), candidate.events.end());
    candidate.window =
        candidate.last - *std::min_element(candidate.events.begin(), candidate.events.end());
    std::vector<SiteId> sites(candidate.events.size());
    for (size_t pos = 0; pos < sites.size(); ++pos)
      sites[pos] = c_.trace.site[candidate.events[pos]];
    if (max_per_site_ > 0 && !best_[pattern].count(sites) && !TakeSiteShares(sites, pattern)) {
      ++stats_->capped;
      return;
    }
    auto [it, inserted] = best_[pattern].try_emplace(std::move(sites), Candidate{});
    Candidate& best = it->second;
    const uint32_t witnesses = best.witnesses + 1;
    if (inserted || candidate.BetterThan(best)) best = std::move(candidate);
    best.witnesses = witnesses;
  }

  // A new site tuple of `pattern`: false when one of its sites already takes part in
  // max_per_site_ tuples; otherwise each distinct site counts one more.
  bool TakeSiteShares(std::vector<SiteId> sites, uint32_t pattern) {
    std::sort(sites.begin(), sites.end());
    sites.erase(std::unique(sites.begin(), sites.end()), sites.end());
    if (site_shares_.size() < best_.size()) site_shares_.resize(best_.size());
    auto& shares = site_shares_[pattern];
    for (SiteId s : sites)
      if (auto it = shares.find(s); it != shares.end() && it->second >= max_per_site_) return false;
    for (SiteId s : sites) ++shares[s];
    return true;
  }

  // ---- races: adjacent, unordered, two events ----

  // Per location: the back-to-back pairs of the trace that match are observed races; then for
  // every pair of access classes (A, B) of different threads with no excluding lock, a sweep
  // over B finds the earliest b with an a < b not POR-ordered before it (such a are a range:
  // those after the last a ->POR b).
  void SearchRaces() {
    for (LocationId l = 0; l < c_.locations.Count(); ++l) {
      SearchFreeRaces(l);
      if (!Eligible(l, p_.variable[0])) continue;
      const EventIndex* accesses = c_.locations.AccessesBegin(l);
      const size_t count = c_.locations.AccessCount(l);
      const bool single_range = c_.locations.Info(l).single_range;
      for (size_t i = 1; i < count; ++i) {
        const EventIndex a = accesses[i - 1];
        const EventIndex b = accesses[i];
        if (c_.trace.thread[a] == c_.trace.thread[b]) continue;
        const uint32_t mask = RaceMask(c_.trace.kind[a], c_.trace.kind[b]);
        if (mask == 0) continue;
        if (!single_range && !c_.RangesOverlap(a, b)) continue;
        ++stats_->candidates;
        if (!Independent(c_, a, b)) continue;
        Candidate candidate;
        candidate.events = {a, b};
        candidate.observed = true;
        RecordAll(std::move(candidate), mask);
      }
      const uint64_t first = c_.class_offsets[l];
      const uint64_t last = c_.class_offsets[l + 1];
      if (single_range || last - first <= kFewClasses) {
        for (uint64_t ca = first; ca < last; ++ca)
          for (uint64_t cb = first; cb < last; ++cb) SweepClassPair(ca, cb);
        continue;
      }
      // Many classes on one location: it merges many byte ranges (a buffer), and nearly every
      // pair of classes touches different bytes. Only overlapping pairs are swept, in the same
      // order as above (so the same witnesses win): pairing all of them took minutes on a
      // compressor's trace whose buffers had 30,000 classes each.
      const OverlapIndex overlaps(c_, first, last);
      std::vector<uint64_t> partners;
      for (uint64_t ca = first; ca < last; ++ca) {
        overlaps.Partners(ca, &partners);
        for (uint64_t cb : partners) SweepClassPair(ca, cb);
      }
    }
  }

  // Up to this many classes on a location, every pair is tried (cheaper than an index).
  static constexpr uint64_t kFewClasses = 64;

  // The access classes of one location by first byte, to list the classes whose bytes overlap
  // a given one: those starting inside it, and those starting before it that reach into it.
  class OverlapIndex {
   public:
    OverlapIndex(const AnalysisContext& c, uint64_t first, uint64_t last)
        : c_(c), first_(first), by_begin_(last - first) {
      for (uint64_t i = 0; i < by_begin_.size(); ++i) by_begin_[i] = first + i;
      std::sort(by_begin_.begin(), by_begin_.end(), [&](uint64_t x, uint64_t y) {
        return c.classes[x].begin != c.classes[y].begin ? c.classes[x].begin < c.classes[y].begin
                                                        : x < y;
      });
      begins_.reserve(by_begin_.size());
      for (uint64_t cls : by_begin_) begins_.push_back(c.classes[cls].begin);
      // reaching_[k]: the classes that start strictly before class first+k and reach into it
      // (class x lists every class starting strictly inside it), as offsets per class.
      std::vector<uint32_t> counts(by_begin_.size() + 1, 0);
      ForEachStartingInside([&](uint64_t, uint64_t inside) { ++counts[inside - first_ + 1]; });
      for (size_t k = 1; k < counts.size(); ++k) counts[k] += counts[k - 1];
      reaching_offsets_.assign(counts.begin(), counts.end());
      reaching_.resize(counts.back());
      ForEachStartingInside(
          [&](uint64_t outer, uint64_t inside) { reaching_[counts[inside - first_]++] = outer; });
    }

    // The classes of another thread overlapping class `a`, ascending.
    void Partners(uint64_t a, std::vector<uint64_t>* out) const {
      out->clear();
      const AccessClass& A = c_.classes[a];
      auto [from, to] = StartingIn(A.begin, A.end);
      for (size_t k = from; k < to; ++k)
        if (c_.classes[by_begin_[k]].thread != A.thread) out->push_back(by_begin_[k]);
      const size_t own = a - first_;
      for (size_t k = reaching_offsets_[own]; k < reaching_offsets_[own + 1]; ++k)
        if (c_.classes[reaching_[k]].thread != A.thread) out->push_back(reaching_[k]);
      std::sort(out->begin(), out->end());
    }

   private:
    // Positions in by_begin_ of the classes whose first byte is in [begin, end).
    std::pair<size_t, size_t> StartingIn(uint64_t begin, uint64_t end) const {
      const size_t from = std::lower_bound(begins_.begin(), begins_.end(), begin) - begins_.begin();
      const size_t to = std::lower_bound(begins_.begin(), begins_.end(), end) - begins_.begin();
      return {from, to};
    }
    template <typename F>
    void ForEachStartingInside(F&& f) const {
      for (uint64_t outer : by_begin_) {
        const AccessClass& O = c_.classes[outer];
        auto [from, to] = StartingIn(O.begin + 1, O.end);
        for (size_t k = from; k < to; ++k) f(outer, by_begin_[k]);
      }
    }

    const AnalysisContext& c_;
    uint64_t first_;
    std::vector<uint64_t> by_begin_;
    std::vector<uint64_t> begins_;
    std::vector<uint64_t> reaching_offsets_;
    std::vector<uint64_t> reaching_;
  };

  // Classes A and B of one location: when of different threads, overlapping, racing kinds and
  // no excluding lock, a sweep over B finds the earliest b with an a < b not POR-ordered before
  // it (such a are a range: those after the last a ->POR b).
  void SweepClassPair(uint64_t ca, uint64_t cb) {
    const AccessClass& A = c_.classes[ca];
    const AccessClass& B = c_.classes[cb];
    if (A.thread == B.thread || !AnalysisContext::Overlap(A, B)) return;
    uint32_t mask = RaceMask(A.kind, B.kind);
    if (mask == 0 || c_.locksets.ExclusiveSets(A.lockset, B.lockset)) return;
    ++stats_->candidates;
    // Patterns that already have an observed witness for these sites need no sweep (the
    // observed pairs were counted as witnesses above; the sweep would find one of them).
    for (uint32_t bit = 0; bit < group_.size(); ++bit) {
      if (!(mask >> bit & 1)) continue;
      auto known = best_[bit].find(std::vector<SiteId>{A.site, B.site});
      if (known != best_[bit].end() && known->second.observed) mask &= ~(1u << bit);
    }
    if (mask == 0) return;
    const EventIndex* a = c_.MembersBegin(ca);
    const size_t na = A.member_count;
    const EventIndex* b = c_.MembersBegin(cb);
    size_t lo = 0;   // a[lo..] are not ordered before the current b
    size_t pos = 0;  // a[..pos) are before the current b in the trace
    for (size_t j = 0; j < B.member_count; ++j) {
      while (pos < na && a[pos] < b[j]) ++pos;
      while (lo < pos && c_.por.Ordered(a[lo], b[j])) ++lo;
      if (lo < pos) {
        Candidate candidate;
        candidate.events = {a[pos - 1], b[j]};
        candidate.observed = c_.TorAdjacent(a[pos - 1], b[j]);
        RecordAll(std::move(candidate), mask);
        return;
      }
    }
  }

  // Each FREE of l against every access class of another thread on the block's bytes: the
  // class's last member before the FREE and its first after it are the ones least ordered with
  // it (members ordered before a FREE are a prefix, members ordered after it a suffix).
  void SearchFreeRaces(LocationId l) {
    const EventIndex* accesses = c_.locations.AccessesBegin(l);
    const EventIndex* accesses_end = c_.locations.AccessesEnd(l);
    for (const EventIndex* f = c_.locations.FreesBegin(l); f != c_.locations.FreesEnd(l); ++f) {
      const EventIndex free = *f;
      const uint64_t begin = c_.trace.addr[free];
      const uint64_t end = begin + std::max<uint32_t>(c_.trace.size[free], 1);
      const LocksetId lockset = c_.locksets.Of(free);
      for (uint64_t cb = c_.class_offsets[l]; cb < c_.class_offsets[l + 1]; ++cb) {
        const AccessClass& B = c_.classes[cb];
        if (B.thread == c_.trace.thread[free] || B.end <= begin || end <= B.begin) continue;
        if (c_.locksets.ExclusiveSets(lockset, B.lockset)) continue;
        const EventIndex* members = c_.MembersBegin(cb);
        const EventIndex* members_end = c_.MembersEnd(cb);
        const EventIndex* after = std::lower_bound(members, members_end, free);
        if (after != members) {
          const EventIndex b = after[-1];
          const uint32_t mask = RaceMask(B.kind, EventKind::kFree);
          if (mask != 0 && !c_.por.Ordered(b, free))
            RecordFreeRace(b, free, mask, accesses, accesses_end);
        }
        if (after != members_end) {
          const EventIndex b = *after;
          const uint32_t mask = RaceMask(EventKind::kFree, B.kind);
          if (mask != 0 && !c_.por.Ordered(free, b))
            RecordFreeRace(free, b, mask, accesses, accesses_end);
        }
      }
    }
  }

  // Observed when no access to the location ran between the two in the recorded run.
  void RecordFreeRace(EventIndex first, EventIndex second, uint32_t mask,
                      const EventIndex* accesses, const EventIndex* accesses_end) {
    ++stats_->candidates;
    const EventIndex* from = std::upper_bound(accesses, accesses_end, first);
    Candidate candidate;
    candidate.events = {first, second};
    candidate.observed = from == accesses_end || *from >= second;
    RecordAll(std::move(candidate), mask);
  }

  uint32_t RaceMask(EventKind a, EventKind b) const { return masks_.Race(a, b); }

  // ---- results ----

  std::string Describe(EventIndex e) const {
    return DescribeEvent(c_.trace.threads, c_.trace.thread[e], c_.trace.kind[e],
                         c_.trace.Origin(e));
  }

  std::string Reason(const Candidate& candidate) const {
    if (p_.adjacent) {
      std::string r = "no common lock and no happens-before order between the accesses";
      if (p_.unordered && candidate.observed) {
        r += "; no other access to this location ran between them in the recorded run";
      } else if (candidate.observed) {
        r += "; the recorded run already shows this order";
      }
      return r;
    }
    if (candidate.observed) return kObservedReason;
    std::string r;
    for (const Move& m : candidate.moves) {
      if (!r.empty()) r += "; ";
      r += MoveClause(Describe(m.event), m.anchor < m.event, Describe(m.anchor));
    }
    return r + kMovedReasonEnd;
  }

  std::vector<Finding> Collect() {
    std::vector<Finding> out;
    for (uint32_t bit = 0; bit < group_.size(); ++bit) {
      for (auto& [sites, candidate] : best_[bit]) {
        Finding f;
        f.pattern = group_[bit]->name;
        f.variant = group_[bit]->variant;
        f.observed = candidate.observed;
        f.adjacent = group_[bit]->adjacent;
        f.events = candidate.events;
        f.reason = Reason(candidate);
        f.witnesses = candidate.witnesses;
        for (const Move& m : candidate.moves) {
          f.overtaken.push_back(m.anchor < m.event ? m.anchor : m.event);
        }
        out.push_back(std::move(f));
      }
    }
    // By events, then in the group's pattern order: the same order on every run.
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding& a, const Finding& b) { return a.events < b.events; });
    return out;
  }

  const AnalysisContext& c_;
  const Pattern& p_;  // the group's shape
  std::vector<const Pattern*> group_;
  PatternSearchStats* stats_;
  const uint32_t k_;
  const uint32_t max_per_site_;
  const uint64_t max_steps_;  // 0: no bound
  uint64_t work_ = 0;         // steps taken
  bool stopped_ = false;
  std::vector<Unit> units_;
  std::vector<Step> steps_;
  std::vector<EventIndex> event_;
  std::vector<size_t> region_slot_;  // where a bound event sits in region_accesses, if known
  std::vector<bool> bound_;
  std::vector<uint32_t> location_of_variable_;
  std::vector<uint32_t> variable_binds_;
  std::vector<uint32_t> thread_of_symbol_;
  std::vector<uint32_t> thread_binds_;
  std::vector<std::pair<uint32_t, uint32_t>> same_variable_pairs_;  // positions q < r
  std::vector<uint8_t> eligible_;  // per location: bit v set if variable v can bind there
  bool all_eligible_ = true;
  KindMasks masks_;    // [position][kind] -> patterns matching
  uint32_t mask_ = 0;  // patterns the bound events still match
  // A unit's classes per UnitClassKey: the index finds them in the store (a deque, so the
  // references ClassesOf hands out stay valid).
  FlatHashMap<uint64_t, uint32_t, U64Hash> unit_class_index_;
  std::deque<UnitClasses> unit_class_store_;
  UnitClasses& UnitClassesAt(uint64_t key) {
    bool inserted = false;
    const uint32_t at = unit_class_index_.FindOrInsert(
        key, static_cast<uint32_t>(unit_class_store_.size()), &inserted);
    if (inserted) unit_class_store_.emplace_back();
    return unit_class_store_[at];
  }
  std::set<uint32_t> pairs_done_;                     // units whose region pairs are enumerated
  std::deque<std::vector<EventIndex>> pair_members_;  // UnitClass::members of their pairs
  std::vector<std::unordered_map<std::vector<SiteId>, Candidate, SiteTupleHash>> best_;
  std::vector<std::unordered_map<SiteId, uint32_t>> site_shares_;  // per pattern: tuples per site
};

}  // namespace

std::string DescribeEvent(const std::vector<ThreadInfo>& threads, ThreadId t, EventKind kind,
                          EventIndex recorded) {
  const std::string thread =
      t < threads.size() && !threads[t].name.empty() ? threads[t].name : "T" + std::to_string(t);
  const std::string what = IsWriteAccess(kind)  ? "write"
                           : IsReadAccess(kind) ? "read"
                                                : std::string(EventKindName(kind));  // "free", ...
  return thread + "'s " + what + " #" + std::to_string(recorded);
}

std::string MoveClause(const std::string& moved, bool before, const std::string& anchor) {
  return moved + (before ? " can run just before " : " can run just after ") + anchor;
}

bool SameShape(const Pattern& a, const Pattern& b) {
  return a.thread == b.thread && a.variable == b.variable && a.region == b.region &&
         a.adjacent == b.adjacent && a.unordered == b.unordered && a.some_plain == b.some_plain;
}

KindMasks::KindMasks(const std::vector<const Pattern*>& group)
    : masks_(group.front()->size()), some_plain_(group.front()->some_plain) {
  for (auto& by_kind : masks_) by_kind.fill(0);
  for (uint32_t bit = 0; bit < group.size(); ++bit) {
    for (uint32_t pos = 0; pos < masks_.size(); ++pos) {
      for (int kind = 0; kind < kEventKindCount; ++kind) {
        if (AccessMatches(group[bit]->access[pos], static_cast<EventKind>(kind)))
          masks_[pos][kind] |= 1u << bit;
      }
    }
  }
}

uint32_t KindMasks::Race(EventKind first, EventKind second) const {
  const auto plain = [](EventKind k) { return IsPlainAccess(k) || k == EventKind::kFree; };
  if (some_plain_ && !plain(first) && !plain(second)) return 0;
  return Of(0, first) & Of(1, second);
}

bool BetterWitness(bool observed, uint64_t last, uint64_t window, bool other_observed,
                   uint64_t other_last, uint64_t other_window) {
  if (observed != other_observed) return observed;
  if (last != other_last) return last < other_last;
  return window < other_window;
}

std::vector<std::vector<const Pattern*>> GroupByShape(const std::vector<Pattern>& patterns) {
  std::vector<std::vector<const Pattern*>> groups;
  for (const Pattern& pattern : patterns) {
    auto same = std::find_if(groups.begin(), groups.end(),
                             [&](const auto& g) { return SameShape(*g.front(), pattern); });
    if (same == groups.end()) {
      groups.push_back({&pattern});
    } else {
      same->push_back(&pattern);
    }
  }
  return groups;
}

std::vector<Finding> SearchPatternGroup(const AnalysisContext& context,
                                        const std::vector<const Pattern*>& group,
                                        PatternSearchStats* stats, uint32_t max_per_site,
                                        uint64_t max_steps) {
  PatternSearchStats local;
  if (stats == nullptr) stats = &local;
  std::vector<Finding> out;
  // A mask bit per pattern: split groups wider than the mask. The parts share the step budget.
  uint64_t steps = 0;
  for (size_t start = 0; start < group.size(); start += kMaxGroup) {
    const std::vector<const Pattern*> part(
        group.begin() + static_cast<std::ptrdiff_t>(start),
        group.begin() + static_cast<std::ptrdiff_t>(std::min(group.size(), start + kMaxGroup)));
    const bool exhausted = max_steps != 0 && steps >= max_steps;
    if (!exhausted) {
      Matcher matcher(context, part, stats, max_per_site, max_steps == 0 ? 0 : max_steps - steps);
      for (Finding& f : matcher.Run()) out.push_back(std::move(f));
      steps += matcher.steps();
      if (!matcher.stopped()) continue;
    }
    for (const Pattern* p : part)
      stats->stopped.push_back(p->variant.empty() ? p->name : p->name + " " + p->variant);
  }
  stats->steps += steps;
  return out;
}

std::vector<Finding> SearchPattern(const AnalysisContext& context, const Pattern& pattern,
                                   PatternSearchStats* stats, uint32_t max_per_site) {
  return SearchPatternGroup(context, {&pattern}, stats, max_per_site);
}

}  // namespace pecan
