// The streaming search of the three-event shape: per thread its open region (the locks held,
// the events and clocks of its slots, its accesses waiting for the next one to their bytes); per
// kept location its access classes with their members, its units (for classes that appear
// later) and the resolutions waiting for a class's next member.
#include "analyzer/streaming_units.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <functional>
#include <unordered_map>
#include <utility>

#include "analyzer/access_class_key.h"
#include "analyzer/flat_hash_map.h"
#include "analyzer/location_lists.h"
#include "analyzer/site_shares.h"
#include "analyzer/unit_group_keys.h"
#include "analyzer/window_prefilter.h"

namespace pecan {
namespace {

constexpr EventIndex kNone = ~EventIndex{0};
constexpr uint32_t kNoPending = ~0u;  // the end of a list of LocationState::pending

struct Member {
  EventIndex event = 0;
  uint32_t local = 0;
};

// An access class (analysis_context.h) of one location, with its members so far.
struct UnitClass : AccessClassKey {
  uint32_t bucket = 0;     // rank of its address set among the location's, by first class
  uint32_t compacted = 0;  // members.size() after the last Compact
  // The first of the list (Pending::next) of LocationState::pending waiting for its next member.
  uint32_t pending = kNoPending;
  bool complete = false;        // no later access touches its bytes
  std::vector<Member> members;  // those a unit may still take (see Compact)
};

// A run of the window's slots (from the top) where the interrupted thread holds one set of lock
// addresses: its top slot, and the thread's event there.
struct SlotRun {
  uint32_t top = 0;
  uint32_t lockset = 0;
  EventIndex event = 0;
  EventKind kind = EventKind::kUnspecified;
};

// A region's access e0 and the region's next access e2 to the same bytes (BindInUnit): what a
// match with them records.
struct UnitHead {
  EventIndex e0 = 0;
  EventIndex e2 = 0;
  SiteId site0 = 0;
  SiteId site2 = 0;
  ThreadId thread = 0;
  EventKind kind0 = EventKind::kUnspecified;
  EventKind kind2 = EventKind::kUnspecified;
  uint32_t mask = 0;  // patterns e0 and e2 fit
  uint64_t key = 0;   // region << 32 | position of e0 in it: SearchPatternGroup's order
};

using Prefilter = WindowPrefilter;
// The units of one group also pair with the same classes: the group keeps them (with the
// patterns each completes), grown as classes appear, so a unit looks only at those.
struct UnitGroup {
  ThreadId thread = 0;
  uint32_t mask = 0;
  Prefilter prefilter;
  uint64_t units = 0;
  std::vector<std::pair<uint32_t, uint32_t>> classes;  // (class, patterns)
};

// A unit, with what classes that appear later need of its window: slots lo..hi, slot s meaning
// "just before the thread's event s".
struct Unit {
  UnitHead head;
  uint64_t begin0 = 0, end0 = 0, begin2 = 0, end2 = 0;
  uint32_t lo = 0;
  uint32_t hi = 0;
  Prefilter prefilter;
  std::vector<SlotRun> runs;  // top first
};

// The slots of a unit's window a class's locks allow: the highest (its event) and the lowest
// (the event before it), or none.
struct OpenSlots {
  bool any = false;
  uint32_t top = 0;
  EventIndex top_event = 0;
  EventKind top_kind = EventKind::kUnspecified;
  uint32_t low = 0;
  EventIndex below_low = 0;  // the thread's event at slot low - 1
  EventKind below_low_kind = EventKind::kUnspecified;
};

// A unit against a class whose next member decides: if it fits the top slot, the witness is
// `begin` (a member so far that fits it too) or else the next member; otherwise `last`, if it
// fits a slot, or none.
struct Pending {
  UnitHead unit;
  uint32_t cls = 0;
  uint32_t mask = 0;
  OpenSlots slots;
  EventIndex begin = kNone;
  EventIndex last = kNone;
  uint64_t serial = 0;  // which pending this is (0: the entry is free)
  uint32_t next = kNoPending;  // the next waiting for the class's next member
};

// A pending of the class's thread to decide once that thread knows the unit thread's event at
// the top slot: then no later member fits it. In a min-heap by top slot, per pair of threads.
struct Waker {
  uint32_t top = 0;
  LocationId location = 0;
  uint32_t pending = 0;
  uint64_t serial = 0;
  bool operator>(const Waker& o) const { return top > o.top; }
};

struct LocationState {
  std::vector<UnitClass> classes;
  std::vector<uint32_t> bucket_locksets;  // by rank
  // The units that classes appearing later may still complete, and the size of that list when
  // it was last pruned of the others.
  std::vector<Unit> units;
  size_t units_pruned = 0;
  std::vector<UnitGroup> unit_groups;  // every unit formed, for the candidate count
  UnitGroupKeys unit_group_keys;       // theirs, by index
  std::vector<Pending> pending;
  std::vector<uint32_t> free_pending;  // entries of `pending` no longer in use
  bool sealed = false;
};

// A region access that may start a unit, until the region's next access to its bytes.
struct Waiting {
  EventIndex event = 0;
  uint32_t local = 0;
  uint32_t position = 0;  // among the region's accesses
  SiteId site = 0;
  EventKind kind = EventKind::kUnspecified;
  uint64_t begin = 0;
  uint64_t end = 0;
};

struct ThreadState {
  RegionId region = kNoRegion;
  uint32_t first_local = 0;  // of the region's first event
  uint32_t accesses = 0;     // the region's accesses so far
  // Per event of the region: the event and its kind; and the runs of its events that hold one set
  // of lock addresses: (local of the run's first event, the set).
  std::vector<EventIndex> events;
  std::vector<EventKind> kinds;
  std::vector<std::pair<uint32_t, uint32_t>> lock_runs;
  // The thread's clock after each of its region's events where it changed: (local, clock).
  std::vector<std::pair<uint32_t, ClockSnapshot>> clocks;
  LocationLists<Waiting> waiting;  // the region's accesses waiting for one to their bytes
  uint32_t version = 0;            // PorStep::version of its last event
  uint64_t events_seen = 0;
};

// Where SearchPatternGroup meets a match: the unit, then the class's bucket and index.
struct Key {
  uint64_t unit = 0;
  uint64_t cls = 0;
  bool operator<(const Key& o) const { return unit != o.unit ? unit < o.unit : cls < o.cls; }
};

struct Witness {
  std::array<EventIndex, 3> events{};
  bool observed = false;
  ThreadId moved_thread = 0;  // the moved event is events[1]
  EventKind moved_kind = EventKind::kUnspecified;
  ThreadId anchor_thread = 0;
  EventIndex anchor = kNone;  // none: observed
  EventKind anchor_kind = EventKind::kUnspecified;

  EventIndex Last() const { return *std::max_element(events.begin(), events.end()); }
  EventIndex Window() const { return Last() - *std::min_element(events.begin(), events.end()); }
  bool BetterThan(const Witness& o) const {
    return BetterWitness(observed, Last(), Window(), o.observed, o.Last(), o.Window());
  }
};

// One site tuple of one pattern: its first match in the search order, its matches, and its best
// witness (ties: the earlier one in the search order).
struct TupleResult {
  Key first;
  uint64_t count = 0;
  Witness best;
  Key best_key;
};

struct SitesHash {
  size_t operator()(const std::array<SiteId, 3>& s) const {
    return std::hash<uint64_t>()((uint64_t{s[0]} << 40) ^ (uint64_t{s[1]} << 20) ^ s[2]);
  }
};

}  // namespace

bool IsUnitShaped(const Pattern& p) {
  return p.size() == 3 && !p.adjacent && !p.unordered && p.variable[0] == p.variable[1] &&
         p.variable[1] == p.variable[2] && p.thread[0] == p.thread[2] &&
         p.thread[0] != p.thread[1] && p.region[0] == p.region[2] && p.region[0] != p.region[1];
}

struct UnitSearch::Impl {
  Impl(const std::vector<const Pattern*>& group, const std::vector<LocationInfo>& infos,
       const std::vector<EventIndex>& last_new_classes, const std::vector<AccessGuards>& guards,
       HeldLocks* locks, uint32_t max_per_site)
      : group_(group),
        infos_(infos),
        last_new_classes_(last_new_classes),
        guards_(guards),
        locks_(locks),
        max_per_site_(max_per_site),
        masks_(group),
        some_plain_(group.front()->some_plain),
        locations_(infos.size()),
        results_(group.size()) {
    // Pattern_search.cpp's PlanLocations for the one variable: a location fits if some pattern
    // of the group finds there the writes and reads it has on it (two threads: classes of
    // another thread are needed anyway).
    for (const Pattern* p : group) {
      bool write = false;
      bool read = false;
      for (AccessMatch m : p->access) {
        write |= m == AccessMatch::kWrite;
        read |= m == AccessMatch::kRead;
      }
      needs_.emplace_back(write, read);
    }
  }

  bool Eligible(LocationId l) const {
    const LocationInfo& info = infos_[l];
    return std::any_of(needs_.begin(), needs_.end(), [&](const std::pair<bool, bool>& n) {
      return (!n.first || info.written) && (!n.second || info.read);
    });
  }

  ThreadState& Thread(ThreadId t) {
    if (t >= threads_.size()) {
      threads_.resize(t + 1);
      knowledge_.resize(t + 1);
    }
    return threads_[t];
  }

  // Units are made of region accesses: where no thread makes one, no unit ever forms, and the
  // location needs no classes. Nor where the prefilter of every unit's window skips every class
  // there is (FormUnit): an access counts only towards the positions of its region's later ones.
  bool AsksClasses(LocationId l) const {
    const AccessGuards& guards = guards_[l];
    return guards.region_thread != AccessGuards::kNone &&
           !guards.PrefilterSkipsHolding(guards.guard);
  }

  void Visit(EventIndex i, const Event& e, LocationId l, AccessClassLookup* lookup,
             uint32_t lockset, PorStep step, RegionId region, bool last_of_bytes,
             const PorClocks& por) {
    const uint32_t local = step.local;
    ++fed_;
    ThreadState& ts = Thread(e.thread);
    const bool new_clock = ts.events_seen == 0 || step.version != ts.version;
    ts.version = step.version;
    ++ts.events_seen;
    if (new_clock) Wake(e.thread, por.CurrentClockView(e.thread));
    if (region != ts.region) {
      ts.region = region;
      ts.first_local = local;
      ts.accesses = 0;
      ts.lock_runs.clear();
      ts.events.clear();
      ts.kinds.clear();
      ts.clocks.clear();
      ts.waiting.Clear();
    }
    if (region != kNoRegion) {
      if (ts.lock_runs.empty() || ts.lock_runs.back().second != lockset)
        ts.lock_runs.emplace_back(local, lockset);
      ts.events.push_back(i);
      ts.kinds.push_back(e.kind);
      if (ts.clocks.empty() || new_clock) ts.clocks.emplace_back(local, por.CurrentClock(e.thread));
    }
    if (l == kNoLocation || guards_[l].region_thread == AccessGuards::kNone) return;
    if (!AsksClasses(l)) {
      if (region != kNoRegion) ++ts.accesses;
      return;
    }
    const AccessGuards& guards = guards_[l];
    LocationState& s = locations_[l];
    const LocationInfo& info = infos_[l];
    const AccessClassRef& cls = lookup->Get();
    const bool created = cls.created;
    const uint32_t c = ClassOf(s, cls);
    const std::vector<uint32_t>& clock = por.CurrentClockView(e.thread);
    // What waited for this class's next member, and the units before its first.
    if (s.classes[c].pending != kNoPending) Settle(s, c, Member{i, local}, &clock);
    if (created) TryUnits(s, c, i, clock);
    // No class appears after this one: the units kept for them go.
    if (!s.units.empty() && i >= last_new_classes_[l]) {
      std::vector<Unit>().swap(s.units);
      s.units_pruned = 0;
    }
    UnitClass& C = s.classes[c];
    // Only a unit of another thread takes a member (Pairs), and units are made of region
    // accesses: where no other thread makes one, the class keeps none (its next member still
    // settles what waits, above). Nor where every unit's window holds the lock every access
    // holds: no member can move into one, nor lie inside one.
    if (guards.RegionAccessByOtherThan(e.thread) && !guards.WindowsHold(guards.guard)) {
      C.members.push_back(Member{i, local});
      if (C.members.size() >= 8 && C.members.size() >= 2 * C.compacted) Compact(s, C, por);
    }
    if (last_of_bytes) {
      s.classes[c].complete = true;
      Settle(s, c, Member{}, nullptr);
    }
    if (region == kNoRegion) return;

    const uint32_t position = ts.accesses++;
    const uint32_t size = std::max<uint32_t>(e.size, 1);
    if (std::vector<Waiting>* found = ts.waiting.Find(l)) {
      std::vector<Waiting>& waiting = *found;
      size_t kept = 0;
      for (size_t k = 0; k < waiting.size(); ++k) {
        const Waiting& w = waiting[k];
        if (info.single_range || (w.begin < e.addr + size && e.addr < w.end)) {
          FormUnit(ts, s, w, i, e, local, por);
        } else {
          waiting[kept++] = w;
        }
      }
      waiting.resize(kept);
    }
    if (masks_.Of(0, e.kind) != 0 && Eligible(l)) {
      ts.waiting.Get(l).push_back(
          Waiting{i, local, position, e.site, e.kind, e.addr, e.addr + size});
    }
  }

  // Drops the members no unit formed later can take. A unit of thread A takes a member x of
  // class c before its e0 in place (the first after e0: e0 is waiting in A's open region), or as
  // the first member not ordered before A's event at some slot (a threshold: that event's clock
  // entry for c's thread), or as the last member. A's events from now on, and the slots of its
  // open region, have entries that a clock holds now, that a message still held brings, or that
  // c's thread sends later (above every member so far): so the members kept are the last, those
  // after the oldest waiting e0, and the first at or above each such entry. The entries are
  // refreshed every kKnowledgeRefresh events; members above c's thread's position at the refresh
  // are all kept.
  void Compact(LocationState& s, UnitClass& c, const PorClocks& por) {
    const ThreadId b = c.thread;
    const LocationId l = static_cast<LocationId>(&s - locations_.data());
    Knowledge& k = knowledge_[b];
    if (!k.valid || fed_ - k.at >= kKnowledgeRefresh) {
      k.values.clear();
      por.KnowledgeOf(b, &k.values);
      std::sort(k.values.begin(), k.values.end());
      k.values.erase(std::unique(k.values.begin(), k.values.end()), k.values.end());
      k.valid = true;
      k.at = fed_;
      k.b_events = Thread(b).events_seen;
    }
    std::vector<uint32_t>& open = open_thresholds_;  // the open regions' entries
    open.clear();
    EventIndex oldest_waiting = kNone;
    for (ThreadId a = 0; a < threads_.size(); ++a) {
      if (a == b) continue;
      const ThreadState& ts = threads_[a];
      for (const auto& [local, clock] : ts.clocks)
        open.push_back(b < clock->size() ? (*clock)[b] : 0);
      if (const std::vector<Waiting>* waiting = ts.waiting.Find(l)) {
        for (const Waiting& w : *waiting) oldest_waiting = std::min(oldest_waiting, w.event);
      }
    }
    std::sort(open.begin(), open.end());
    std::vector<uint8_t>& keep = keep_;
    keep.assign(c.members.size(), 0);
    keep.back() = 1;
    // The first member at or above each threshold: thresholds and members both ascend, so one
    // walk over each list marks them all.
    auto mark = [&](const std::vector<uint32_t>& thresholds) {
      size_t m = 0;
      for (uint32_t v : thresholds) {
        while (m < c.members.size() && c.members[m].local < v) ++m;
        if (m == c.members.size()) break;
        keep[m] = 1;
      }
    };
    mark(k.values);
    mark(open);
    size_t kept = 0;
    for (size_t m = 0; m < c.members.size(); ++m) {
      const Member& x = c.members[m];
      if (keep[m] || x.local >= k.b_events || (oldest_waiting != kNone && x.event > oldest_waiting))
        c.members[kept++] = x;
    }
    c.members.resize(kept);
    c.compacted = static_cast<uint32_t>(kept);
  }

  // The record of class `cls`, created on its first access: the search sees every access, so
  // the class's number is its record's index.
  uint32_t ClassOf(LocationState& s, const AccessClassRef& cls) {
    const uint32_t id = cls.id;
    if (!cls.created) return id;
    assert(id == s.classes.size());
    const AccessClassKey& key = cls.key;
    const uint32_t lockset = key.lockset;
    UnitClass c;
    static_cast<AccessClassKey&>(c) = key;
    const auto rank = std::find(s.bucket_locksets.begin(), s.bucket_locksets.end(), lockset);
    c.bucket = static_cast<uint32_t>(rank - s.bucket_locksets.begin());
    if (rank == s.bucket_locksets.end()) s.bucket_locksets.push_back(lockset);
    s.classes.push_back(std::move(c));
    return id;
  }

  // Thread ts's clock entry for thread `b` at its event `local` (in its open region).
  static uint32_t ClockAt(const ThreadState& ts, uint32_t local, ThreadId b) {
    auto it = std::upper_bound(ts.clocks.begin(), ts.clocks.end(), local,
                               [](uint32_t x, const auto& entry) { return x < entry.first; });
    const std::vector<uint32_t>& clock = *std::prev(it)->second;
    return b < clock.size() ? clock[b] : 0;
  }

  // The region's next access `i` (at `local`) to the bytes of waiting access `w`: a unit, tried
  // against every class of the location so far and kept for the classes to come.
  void FormUnit(const ThreadState& ts, LocationState& s, const Waiting& w, EventIndex i,
                const Event& e, uint32_t local, const PorClocks& por) {
    const uint32_t mask = masks_.Of(0, w.kind) & masks_.Of(2, e.kind);
    if (mask == 0) return;
    // Built in a scratch unit whose runs keep their storage: most units are resolved at once.
    Unit& u = forming_;
    u.runs.clear();
    u.head = UnitHead{w.event, i,        w.site,
                      e.site,  e.thread, w.kind,
                      e.kind,  mask,     uint64_t{ts.region} << 32 | w.position};
    u.begin0 = w.begin;
    u.end0 = w.end;
    u.begin2 = e.addr;
    u.end2 = e.addr + std::max<uint32_t>(e.size, 1);
    u.lo = w.local + 1;
    u.hi = local;
    // The window's runs of equal locks, from the top.
    auto run = std::upper_bound(ts.lock_runs.begin(), ts.lock_runs.end(), u.hi,
                                [](uint32_t s, const auto& r) { return s < r.first; });
    for (uint32_t top = u.hi;;) {
      --run;
      const uint32_t slot = top - ts.first_local;
      u.runs.push_back(SlotRun{top, run->second, ts.events[slot], ts.kinds[slot]});
      if (run->first <= u.lo) break;
      top = run->first - 1;
    }
    u.prefilter =
        WindowPrefilter::Of(u.lo, u.hi, u.runs.size(), [&](size_t r) { return u.runs[r].lockset; });
    // Every access to the location holds its guard: if each lock set of the window holds it too,
    // the prefilter skips every class there ever is (Pairs), so the unit completes nothing and
    // counts no candidate (its group's units count only once a class pairs with them).
    const uint64_t guard = guards_[&s - locations_.data()].guard;
    if (guard != 0 && u.prefilter.SkipsEveryClassHolding(guard, *locks_)) return;
    const size_t found = s.unit_group_keys.Find(u.head.thread, mask, 0, u.prefilter, [&](size_t k) {
      return s.unit_groups[k].prefilter == u.prefilter;
    });
    auto group = s.unit_groups.begin() + static_cast<std::ptrdiff_t>(found);
    if (group == s.unit_groups.end()) {
      group = s.unit_groups.insert(group, UnitGroup{u.head.thread, mask, u.prefilter, 0, {}});
      s.unit_group_keys.Add(u.head.thread, mask, 0, u.prefilter);
      for (uint32_t c = 0; c < s.classes.size(); ++c) {
        const uint32_t pairs = Pairs(u.head.thread, mask, u.prefilter, s.classes[c]);
        if (pairs != 0) group->classes.emplace_back(c, pairs);
      }
    }
    ++group->units;
    candidates_ += group->classes.size();
    for (const auto& [c, pairs] : group->classes) Resolve(ts, s, u, c, pairs, por);
    if (i >= last_new_classes_[&s - locations_.data()]) return;  // no class appears after e2
    s.units.push_back(u);
    if (s.units.size() >= 16 && s.units.size() >= 2 * s.units_pruned) PruneUnits(s, por);
  }

  // Drops the units no class appearing later can complete: every thread's later events (a thread
  // not started yet inherits its forker's) know the window's last slot, so a later access is
  // ordered after every slot.
  void PruneUnits(LocationState& s, const PorClocks& por) {
    const std::vector<uint32_t> known = LeastKnown(por);
    std::erase_if(s.units, [&](const Unit& u) { return known[u.head.thread] > u.hi; });
    s.units_pruned = s.units.size();
  }

  // Per thread A: the least any other thread's later events know of A.
  static std::vector<uint32_t> LeastKnown(const PorClocks& por) {
    const uint32_t n = por.thread_count();
    std::vector<uint32_t> least(n, ~0u);
    for (ThreadId b = 0; b < n; ++b) {
      for (ThreadId a = 0; a < n; ++a) {
        if (a != b) least[a] = std::min(least[a], por.LeastKnown(b, a));
      }
    }
    return least;
  }

  // Whether the search pairs a unit of these patterns and window with class c, as far as the
  // lock prefilter of the window, the class's thread and its kind tell (pattern_search.cpp's
  // BindUnitClass): the patterns it can complete, or 0.
  uint32_t Pairs(ThreadId thread, uint32_t unit_mask, const Prefilter& prefilter,
                 const UnitClass& c) {
    if (c.thread == thread) return 0;
    const uint32_t mask = unit_mask & masks_.Of(1, c.kind);
    if (mask == 0) return 0;
    return prefilter.Skips(c.lockset, *locks_) ? 0 : mask;
  }

  static bool Overlaps(const LocationInfo& info, const Unit& u, const UnitClass& c) {
    return info.single_range ||
           (c.begin < u.end0 && u.begin0 < c.end && c.begin < u.end2 && u.begin2 < c.end);
  }

  OpenSlots Open(const Unit& u, const UnitClass& c) {
    OpenSlots o;
    for (size_t r = 0; r < u.runs.size(); ++r) {
      if (locks_->Exclusive(u.runs[r].lockset, c.lockset)) continue;
      if (!o.any) {
        o.any = true;
        o.top = u.runs[r].top;
        o.top_event = u.runs[r].event;
        o.top_kind = u.runs[r].kind;
      }
      // The run's lowest slot is one above the next run's top (or the window's first).
      if (r + 1 < u.runs.size()) {
        o.low = u.runs[r + 1].top + 1;
        o.below_low = u.runs[r + 1].event;
        o.below_low_kind = u.runs[r + 1].kind;
      } else {
        o.low = u.lo;
        o.below_low = u.head.e0;
        o.below_low_kind = u.head.kind0;
      }
    }
    return o;
  }

  // ResolveClass for unit `u` (just formed, its thread's region still open) and class `c`, which
  // pairs with it for patterns `mask`: what the members so far decide, and what waits for the
  // next one.
  void Resolve(const ThreadState& ts, LocationState& s, const Unit& u, uint32_t c, uint32_t mask,
               const PorClocks& por) {
    UnitClass& C = s.classes[c];
    if (!Overlaps(infos_[&s - locations_.data()], u, C)) return;
    const std::vector<Member>& members = C.members;
    // In place: the first member after e0, if it comes before e2.
    const auto after = std::upper_bound(members.begin(), members.end(), u.head.e0,
                                        [](EventIndex e, const Member& m) { return e < m.event; });
    if (after != members.end() && after->event < u.head.e2) {
      Witness w;
      w.events = {u.head.e0, after->event, u.head.e2};
      w.observed = true;
      Record(s, u.head, c, mask, w);
      return;
    }
    const OpenSlots open = Open(u, C);
    if (!open.any) return;
    // The members so far all precede e0. A member fits slot s unless it is ordered before the
    // thread's event s-1: the last one fits the lowest open slot if any member fits any.
    Pending p{u.head, c, mask, open, kNone, kNone};
    if (!members.empty() && members.back().local >= ClockAt(ts, open.low - 1, C.thread))
      p.last = members.back().event;
    const uint32_t top_threshold = ClockAt(ts, open.top - 1, C.thread);
    if (!members.empty() && members.back().local >= top_threshold) {
      p.begin = std::lower_bound(members.begin(), members.end(), top_threshold,
                                 [](const Member& m, uint32_t k) { return m.local < k; })
                    ->event;
    }
    // A later member fits the top slot only if its thread does not know the slot's event yet.
    if (!C.complete && !por.OrderedBeforeCurrent(u.head.thread, open.top, C.thread)) {
      uint32_t at = static_cast<uint32_t>(s.pending.size());
      p.serial = ++serial_;
      if (s.free_pending.empty()) {
        s.pending.push_back(p);
      } else {
        at = s.free_pending.back();
        s.free_pending.pop_back();
        s.pending[at] = p;
      }
      s.pending[at].next = C.pending;
      C.pending = at;
      std::vector<Waker>& heap = Wakers(C.thread, u.head.thread);
      heap.push_back(
          Waker{open.top, static_cast<LocationId>(&s - locations_.data()), at, p.serial});
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
      return;
    }
    Conclude(s, p, Member{}, nullptr);
  }

  // Pending `p` decided by the class's next member (`clock` its clock; none: there is none).
  void Conclude(LocationState& s, const Pending& p, Member next,
                const std::vector<uint32_t>* clock) {
    const UnitHead& u = p.unit;
    const UnitClass& C = s.classes[p.cls];
    Witness w;
    w.moved_thread = C.thread;
    w.moved_kind = C.kind;
    w.anchor_thread = u.thread;
    const bool next_fits =
        clock != nullptr && (u.thread < clock->size() ? (*clock)[u.thread] : 0) <= p.slots.top;
    EventIndex x = kNone;
    if (next_fits && p.begin == kNone) {
      x = next.event;
      w.anchor = p.slots.top_event;
      w.anchor_kind = p.slots.top_kind;
    } else if (next_fits || p.last != kNone) {
      x = next_fits ? p.begin : p.last;
      w.anchor = p.slots.below_low;
      w.anchor_kind = p.slots.below_low_kind;
    }
    if (x == kNone) return;
    w.events = {u.e0, x, u.e2};
    Record(s, u, p.cls, p.mask, w);
  }

  void Settle(LocationState& s, uint32_t c, Member next, const std::vector<uint32_t>* clock) {
    uint32_t p = std::exchange(s.classes[c].pending, kNoPending);
    while (p != kNoPending) {
      Conclude(s, s.pending[p], next, clock);
      s.pending[p].serial = 0;
      s.free_pending.push_back(p);
      p = s.pending[p].next;
    }
  }

  std::vector<Waker>& Wakers(ThreadId b, ThreadId a) {
    if (b >= wakers_.size()) wakers_.resize(b + 1);
    return wakers_[b][a];
  }

  // Thread b's clock grew: the pendings of its classes whose top slot it now knows are decided
  // (no later member of b fits them).
  void Wake(ThreadId b, const std::vector<uint32_t>& clock) {
    if (b >= wakers_.size()) return;
    for (auto& [a, heap] : wakers_[b]) {
      const uint32_t known = a < clock.size() ? clock[a] : 0;
      while (!heap.empty() && heap.front().top < known) {
        const Waker w = heap.front();
        std::pop_heap(heap.begin(), heap.end(), std::greater<>());
        heap.pop_back();
        LocationState& s = locations_[w.location];
        if (s.sealed || w.pending >= s.pending.size() || s.pending[w.pending].serial != w.serial)
          continue;  // decided already
        Pending& p = s.pending[w.pending];
        for (uint32_t* link = &s.classes[p.cls].pending; *link != kNoPending;
             link = &s.pending[*link].next) {
          if (*link == w.pending) {
            *link = p.next;
            break;
          }
        }
        Conclude(s, p, Member{}, nullptr);
        p.serial = 0;
        s.free_pending.push_back(w.pending);
      }
    }
  }

  // Class `c` just got its first member `x` (clock `clock`): the units formed before it.
  void TryUnits(LocationState& s, uint32_t c, EventIndex x, const std::vector<uint32_t>& clock) {
    const LocationInfo& info = infos_[&s - locations_.data()];
    const UnitClass& C = s.classes[c];
    for (UnitGroup& g : s.unit_groups) {
      const uint32_t pairs = Pairs(g.thread, g.mask, g.prefilter, C);
      if (pairs == 0) continue;
      candidates_ += g.units;
      g.classes.emplace_back(c, pairs);
    }
    for (const Unit& u : s.units) {
      const uint32_t mask = Pairs(u.head.thread, u.head.mask, u.prefilter, C);
      if (mask == 0 || !Overlaps(info, u, C)) continue;
      const OpenSlots open = Open(u, C);
      if (!open.any || (u.head.thread < clock.size() ? clock[u.head.thread] : 0) > open.top)
        continue;
      Witness w;
      w.events = {u.head.e0, x, u.head.e2};
      w.moved_thread = C.thread;
      w.moved_kind = C.kind;
      w.anchor_thread = u.head.thread;
      w.anchor = open.top_event;
      w.anchor_kind = open.top_kind;
      Record(s, u.head, c, mask, w);
    }
  }

  void Record(const LocationState& s, const UnitHead& u, uint32_t c, uint32_t mask,
              const Witness& w) {
    const UnitClass& C = s.classes[c];
    if (some_plain_ && !IsPlainAccess(u.kind0) && !IsPlainAccess(C.kind) && !IsPlainAccess(u.kind2))
      return;
    const Key key{u.key, uint64_t{C.bucket} << 32 | c};
    const std::array<SiteId, 3> sites{u.site0, C.site, u.site2};
    for (uint32_t bit = 0; mask != 0; ++bit, mask >>= 1) {
      if (!(mask & 1)) continue;
      auto [it, inserted] = results_[bit].try_emplace(sites);
      TupleResult& r = it->second;
      ++r.count;
      if (inserted || key < r.first) r.first = key;
      if (inserted || w.BetterThan(r.best) || (!r.best.BetterThan(w) && key < r.best_key)) {
        r.best = w;
        r.best_key = key;
      }
    }
  }

  void Seal(LocationId l) {
    LocationState& s = locations_[l];
    if (s.sealed) return;
    s.sealed = true;
    for (uint32_t c = 0; c < s.classes.size(); ++c) Settle(s, c, Member{}, nullptr);
    s = LocationState{};
    s.sealed = true;
  }

  std::vector<Finding> Finish(const std::vector<ThreadInfo>& threads, PatternSearchStats* stats) {
    for (LocationId l = 0; l < locations_.size(); ++l) Seal(l);
    std::vector<Finding> out;
    for (uint32_t bit = 0; bit < group_.size(); ++bit) {
      std::vector<std::pair<std::array<SiteId, 3>, TupleResult>> tuples(results_[bit].begin(),
                                                                        results_[bit].end());
      if (max_per_site_ > 0) {
        // SearchPatternGroup's per-site bound: tuples in the order it meets them.
        std::sort(tuples.begin(), tuples.end(),
                  [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
        KeepWithinSiteShares(
            &tuples, max_per_site_, [](const auto& t) { return t.first; },
            [](const auto& t) { return t.second.count; }, &stats->capped);
      }
      for (const auto& [sites, r] : tuples) {
        Finding f;
        f.pattern = group_[bit]->name;
        f.variant = group_[bit]->variant;
        f.observed = r.best.observed;
        f.events.assign(r.best.events.begin(), r.best.events.end());
        f.witnesses = static_cast<uint32_t>(r.count);
        if (r.best.observed) {
          f.reason = kObservedReason;
        } else {
          const EventIndex x = r.best.events[1];
          const bool before = r.best.anchor < x;
          f.reason =
              MoveClause(
                  DescribeEvent(threads, r.best.moved_thread, r.best.moved_kind, x), before,
                  DescribeEvent(threads, r.best.anchor_thread, r.best.anchor_kind, r.best.anchor)) +
              kMovedReasonEnd;
          f.overtaken.push_back(before ? r.best.anchor : x);
        }
        out.push_back(std::move(f));
      }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Finding& a, const Finding& b) { return a.events < b.events; });
    stats->candidates += candidates_;
    return out;
  }

  std::vector<const Pattern*> group_;
  const std::vector<LocationInfo>& infos_;
  const std::vector<EventIndex>& last_new_classes_;
  const std::vector<AccessGuards>& guards_;  // per location
  HeldLocks* locks_;
  uint32_t max_per_site_;
  KindMasks masks_;
  bool some_plain_;
  std::vector<std::pair<bool, bool>> needs_;  // per pattern: (writes, reads) on the variable
  std::vector<ThreadState> threads_;
  std::vector<LocationState> locations_;
  std::vector<std::unordered_map<std::array<SiteId, 3>, TupleResult, SitesHash>> results_;
  uint64_t candidates_ = 0;
  uint64_t serial_ = 0;                                                   // of the last pending
  std::vector<std::unordered_map<ThreadId, std::vector<Waker>>> wakers_;  // [b][a]: min-heaps
  // Per thread b: the clock entries for b that units may still ask (Compact), as of event `at`,
  // when b had run `b_events` events.
  struct Knowledge {
    bool valid = false;
    uint64_t at = 0;
    uint32_t b_events = 0;
    std::vector<uint32_t> values;
  };
  static constexpr uint64_t kKnowledgeRefresh = 1 << 16;
  std::vector<Knowledge> knowledge_;
  std::vector<uint32_t> open_thresholds_;  // Compact's buffers
  std::vector<uint8_t> keep_;
  Unit forming_;      // FormUnit's
  uint64_t fed_ = 0;  // events fed
};

UnitSearch::UnitSearch(const std::vector<const Pattern*>& group,
                       const std::vector<LocationInfo>& infos,
                       const std::vector<EventIndex>& last_new_classes,
                       const std::vector<AccessGuards>& guards, HeldLocks* locks,
                       uint32_t max_per_site)
    : impl_(std::make_unique<Impl>(group, infos, last_new_classes, guards, locks, max_per_site)) {}
UnitSearch::~UnitSearch() = default;
UnitSearch::UnitSearch(UnitSearch&&) noexcept = default;

void UnitSearch::Visit(EventIndex i, const Event& e, LocationId l, AccessClassLookup* cls,
                       uint32_t lockset, PorStep step, RegionId region, bool last_of_bytes,
                       const PorClocks& por) {
  impl_->Visit(i, e, l, cls, lockset, step, region, last_of_bytes, por);
}

bool UnitSearch::AsksClasses(LocationId l) const {
  return impl_->AsksClasses(l);
}

void UnitSearch::Seal(LocationId l) {
  impl_->Seal(l);
}

std::vector<Finding> UnitSearch::Finish(const std::vector<ThreadInfo>& threads,
                                        PatternSearchStats* stats) {
  return impl_->Finish(threads, stats);
}

}  // namespace pecan
